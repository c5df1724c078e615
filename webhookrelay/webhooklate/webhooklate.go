package webhooklate

import (
	"slices"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Sources of an expectation.
const (
	SourceSent       = "sent"       // this profile's audit record
	SourceAuthorised = "authorised" // the relay saw payout_authorised
)

// Payout is one payout whose final webhook is expected.
type Payout struct {
	ID       string `json:"payout_id"`
	Currency string `json:"currency,omitempty"`
	Amount   int64  `json:"amount_in_minor,omitempty"`
	// Since is when it was sent (or, seen only by the relay, authorised).
	Since  time.Time `json:"since"`
	Source string    `json:"source"`
	// Family is the interface its events come in (relayclient.Family*);
	// payouts sent by paydash are payout-interface payouts.
	Family string `json:"family"`
}

// Status is where a payout's final webhook stands.
type Status struct {
	Payout
	// Expects lists the final event types that would settle it.
	Expects []string `json:"expects"`
	// Deadline is Since plus webhook_late for its currency.
	Deadline time.Time `json:"deadline"`
	// Final is the final webhook's type once it came, and FinalAt when.
	Final   string    `json:"final,omitempty"`
	FinalAt time.Time `json:"final_at,omitzero"`
	// LastSeen is the latest (non-final) state a webhook reported.
	LastSeen string `json:"last_seen,omitempty"`
	// Late is set while the final webhook is overdue; LateBy says by how
	// much (at the time asked, or, once it came, how late it came).
	Late   bool          `json:"late"`
	LateBy time.Duration `json:"late_by_ns,omitempty"`
	// ArrivedLate: the final webhook came after the deadline.
	ArrivedLate bool `json:"arrived_late,omitempty"`
}

// Limit gives webhook_late for a currency (config.WebhookLate.For).
type Limit func(currency string) time.Duration

// Book holds the expectations. It is not safe for concurrent use; each
// screen or command keeps its own.
type Book struct {
	limit Limit
	byID  map[string]*Status
	// pending are the payouts whose final webhook has not come: all
	// Check has to look at, however many payouts came and went.
	pending map[string]*Status
	// finals are the keys of the payouts whose final webhook came, in
	// the order it came (from head on): Prune forgets from the front.
	finals []string
	head   int
}

// New returns an empty book using limit.
func New(limit Limit) *Book {
	return &Book{limit: limit, byID: map[string]*Status{}, pending: map[string]*Status{}}
}

// The final events of each family's payouts, shared by every Status
// (read only).
var (
	expectsPayments = []string{api.EventPayoutExecuted, api.EventPayoutFailed}
	expectsPayout   = []string{api.EventPayoutSettled, api.EventPayoutFailed, api.EventPayoutRejected}
)

// expects names the final events of a family's payouts.
func expects(family string) []string {
	if family == relayclient.FamilyPayments {
		return expectsPayments
	}
	return expectsPayout
}

// Sent records a payout this profile sent. Sending it again (a retry)
// keeps the first time.
func (b *Book) Sent(p Payout) {
	if p.ID == "" {
		return
	}
	if p.Source == "" {
		p.Source = SourceSent
	}
	if p.Family == "" {
		p.Family = relayclient.FamilyPayout
	}
	if s, ok := b.byID[key(p.ID)]; ok {
		if s.Currency == "" && p.Currency != "" {
			s.Currency, s.Amount = p.Currency, p.Amount
			s.Deadline = s.Since.Add(b.limit(s.Currency))
		}
		if s.Source == SourceAuthorised && p.Source == SourceSent && p.Since.Before(s.Since) {
			s.Since, s.Source = p.Since, SourceSent
			s.Deadline = s.Since.Add(b.limit(s.Currency))
		}
		return
	}
	st := &Status{Payout: p, Expects: expects(p.Family), Deadline: p.Since.Add(b.limit(p.Currency))}
	b.byID[key(p.ID)] = st
	b.pending[key(p.ID)] = st
}

func key(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// Observe takes a relay event: payout_authorised adds a payout not sent
// from here; a final event settles its payout. It returns the payout's
// status when this event was its final webhook (ArrivedLate says whether
// it came late, LateBy by how much), else ok is false.
func (b *Book) Observe(ev relayclient.Event) (st Status, final bool) {
	if ev.PayoutID == "" {
		return Status{}, false
	}
	at := ev.ReceivedAt
	s, known := b.byID[key(ev.PayoutID)]
	if !known {
		if ev.State == "" {
			return Status{}, false
		}
		// Seen by the relay only: expected from when it was authorised
		// (or whenever its first event came).
		b.Sent(Payout{ID: ev.PayoutID, Since: at, Source: SourceAuthorised, Family: ev.Family})
		s = b.byID[key(ev.PayoutID)]
	}
	if ev.Family == relayclient.FamilyPayments && s.Family != relayclient.FamilyPayments && s.Final == "" {
		s.Family, s.Expects = ev.Family, expects(ev.Family)
	}
	if !api.IsFinalState(ev.State) {
		if ev.State != "" {
			s.LastSeen = ev.State
		}
		return Status{}, false
	}
	if s.Final != "" {
		return Status{}, false // a redelivery of the final, or a second one
	}
	s.Final, s.FinalAt, s.Late = ev.Type, at, false
	delete(b.pending, key(ev.PayoutID))
	b.finals = append(b.finals, key(ev.PayoutID))
	if at.After(s.Deadline) {
		s.ArrivedLate, s.LateBy = true, at.Sub(s.Deadline)
	} else {
		s.LateBy = 0
	}
	return *s, true
}

// Check returns every payout whose final webhook is overdue at now,
// oldest deadline first, each with LateBy at now.
func (b *Book) Check(now time.Time) []Status {
	var out []Status
	for _, s := range b.pending {
		if now.After(s.Deadline) {
			s.Late, s.LateBy = true, now.Sub(s.Deadline)
			out = append(out, *s)
		}
	}
	slices.SortFunc(out, func(a, c Status) int {
		if d := a.Deadline.Compare(c.Deadline); d != 0 {
			return d
		}
		return strings.Compare(a.ID, c.ID)
	})
	return out
}

// Get returns a payout's status as of now.
func (b *Book) Get(id string, now time.Time) (Status, bool) {
	s, ok := b.byID[key(id)]
	if !ok {
		return Status{}, false
	}
	out := *s
	if out.Final == "" && now.After(out.Deadline) {
		out.Late, out.LateBy = true, now.Sub(out.Deadline)
	}
	return out, true
}

// Prune bounds a long-running book: past max payouts it forgets those
// whose final webhook came, the earliest to come first; payouts still
// expected are kept, since forgetting one would hide a missing webhook.
// Each payout forgotten costs the same however many the book saw.
func (b *Book) Prune(max int) {
	for len(b.byID) > max && b.head < len(b.finals) {
		k := b.finals[b.head]
		b.finals[b.head] = ""
		b.head++
		if s, ok := b.byID[k]; ok && s.Final != "" {
			delete(b.byID, k)
		}
	}
	if b.head > 64 && b.head > len(b.finals)/2 {
		b.finals = slices.Delete(b.finals, 0, b.head)
		b.head = 0
	}
}

// Pending is how many payouts still expect their final webhook.
func (b *Book) Pending() int { return len(b.pending) }

// Len is how many payouts the book follows.
func (b *Book) Len() int { return len(b.byID) }

// ExpectsText is "payout_settled, payout_failed or payout_rejected".
func ExpectsText(s Status) string {
	switch n := len(s.Expects); n {
	case 0:
		return ""
	case 1:
		return s.Expects[0]
	default:
		return strings.Join(s.Expects[:n-1], ", ") + " or " + s.Expects[n-1]
	}
}

// Round is how late-by durations are shown: seconds under an hour,
// minutes beyond.
func Round(d time.Duration) time.Duration {
	if d < time.Hour {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}
