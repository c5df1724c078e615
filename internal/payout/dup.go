package payout

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
)

// DefaultWindow is how far back a payout counts as a possible duplicate.
const DefaultWindow = 7 * 24 * time.Hour

// Sources of a Payment.
const (
	FromLocalRecord = "local audit record"
	FromReport      = "service report"
)

// Payment is a payout already made (or attempted with no definite
// refusal), from the local record or the service's report.
type Payment struct {
	TransactionID string    `json:"transaction_id"`
	At            time.Time `json:"at"`
	Name          string    `json:"beneficiary_name"`
	IBAN          string    `json:"beneficiary_iban"`
	Reference     string    `json:"beneficiary_reference"`
	AmountInMinor int64     `json:"amount_in_minor"`
	Currency      string    `json:"currency"`
	// Outcome is the last known outcome ("" when only the attempt is
	// recorded: the process stopped before hearing back) or the report's
	// status.
	Outcome string `json:"outcome,omitempty"`
	// Where is FromLocalRecord or FromReport.
	Where     string `json:"where"`
	BatchFile string `json:"batch_file,omitempty"`
	Line      int    `json:"line,omitempty"`
	// Unconfirmed is set by Resolve: the record shows it accepted, but the
	// service's report still lacks it and the relay could not say what
	// became of it (a rejected payout never enters the report).
	Unconfirmed bool `json:"unconfirmed,omitempty"`
}

// String is the payment in one line for the operator; its name, IBAN and
// outcome come from a file, the record or the service, so they are
// escaped (termtext) wherever the line is printed.
func (p Payment) String() string {
	s := fmt.Sprintf("%s on %s, %s to %s (%s), ref %q, from the %s",
		p.TransactionID, p.At.UTC().Format("2006-01-02 15:04 MST"), api.FormatAmount(p.AmountInMinor, p.Currency),
		termtext.Safe(p.Name), termtext.Safe(p.IBAN), p.Reference, p.Where)
	if p.Outcome != "" {
		s += ", " + termtext.Safe(p.Outcome)
	}
	if p.Unconfirmed {
		s += " (not in the service's report yet, and no final state known: it may have been rejected, which the report never shows; " +
			"check its states with paydash events tail --since 0 --payout " + p.TransactionID + ")"
	}
	return s
}

// paid reports whether the payment may have moved money: a definite
// refusal, a rejection or a failure (the money came back) did not, so
// sending it again is the usual fix, not a duplicate.
func (p Payment) paid() bool {
	switch p.Outcome {
	case OutcomeRefused, OutcomeRejected, OutcomeFailed, OutcomeExisting:
		return false
	}
	return true
}

// FromRecord folds the record's lines into one Payment per attempted
// transaction id, with its last outcome, oldest first.
func FromRecord(entries []Entry) []Payment {
	ix := newIndex()
	for _, e := range entries {
		ix.apply(e)
	}
	return ix.list
}

// index folds record lines into payments as they are read, and finds
// them by duplicate key.
type index struct {
	byID  map[string]int
	byKey map[string][]int
	list  []Payment
}

func newIndex() *index { return &index{byID: map[string]int{}, byKey: map[string][]int{}} }

func (ix *index) apply(e Entry) {
	switch e.Event {
	case EventAttempt:
		if i, ok := ix.byID[e.TransactionID]; ok {
			// A re-send of the same id (a resumed batch): same payout.
			ix.list[i].Outcome = ""
			return
		}
		p := Payment{TransactionID: e.TransactionID, At: e.At, Name: e.Name, IBAN: api.NormalizeIBAN(e.IBAN),
			Reference: e.Reference, AmountInMinor: e.AmountInMinor, Currency: e.Currency, Where: FromLocalRecord,
			BatchFile: e.BatchFile, Line: e.Line}
		ix.byID[e.TransactionID] = len(ix.list)
		r := e.Request()
		k := Key(&r)
		ix.byKey[k] = append(ix.byKey[k], len(ix.list))
		ix.list = append(ix.list, p)
	case EventOutcome:
		if i, ok := ix.byID[e.TransactionID]; ok {
			ix.list[i].Outcome = e.Outcome
		}
	}
}

// withKey returns the payments with duplicate key k.
func (ix *index) withKey(k string) []Payment {
	out := make([]Payment, 0, len(ix.byKey[k]))
	for _, i := range ix.byKey[k] {
		out = append(out, ix.list[i])
	}
	return out
}

// FromReportRecords turns the service's transaction report into payments
// (payouts only).
func FromReportRecords(txs []api.Transaction) []Payment {
	var out []Payment
	for _, t := range txs {
		if !strings.EqualFold(t.Type, api.TransactionPayout) {
			continue
		}
		out = append(out, Payment{TransactionID: t.TransactionID, At: t.AuthorisedAt.Time, Name: t.BeneficiaryName,
			IBAN: api.NormalizeIBAN(t.BeneficiaryIBAN), Reference: t.BeneficiaryReference, AmountInMinor: t.AmountInMinor,
			Currency: t.Currency, Outcome: t.Status, Where: FromReport})
	}
	return out
}

// SameDetails reports whether two payouts are the same payment for the
// duplicate check: IBAN, amount, currency and reference (the reference
// compared without case or surrounding spaces, as a person reads it).
func SameDetails(a, b *api.PayoutRequest) bool {
	return api.NormalizeIBAN(a.BeneficiaryIBAN) == api.NormalizeIBAN(b.BeneficiaryIBAN) &&
		a.AmountInMinor == b.AmountInMinor &&
		strings.EqualFold(a.Currency, b.Currency) &&
		strings.EqualFold(strings.TrimSpace(a.BeneficiaryReference), strings.TrimSpace(b.BeneficiaryReference))
}

// UsedFor says, when id was already used for a payout other than req
// (other details or payee), which one, as "on DATE for a different payout
// (AMOUNT to NAME, IBAN, ref R, from the WHERE)"; "" when id is unknown or
// names req itself. The service creates nothing for an id it has seen,
// so such a request would never be paid.
func (k *Known) UsedFor(id string, req *api.PayoutRequest) string {
	p, ok := k.ByID(id)
	if !ok {
		return ""
	}
	was := api.PayoutRequest{BeneficiaryIBAN: p.IBAN, AmountInMinor: p.AmountInMinor, Currency: p.Currency, BeneficiaryReference: p.Reference}
	if SameDetails(&was, req) && strings.EqualFold(strings.TrimSpace(p.Name), strings.TrimSpace(req.BeneficiaryName)) {
		return ""
	}
	return fmt.Sprintf("on %s for a different payout (%s to %s, %s, ref %q, from the %s)",
		p.At.UTC().Format("2006-01-02 15:04 MST"), api.FormatAmount(p.AmountInMinor, p.Currency), p.Name, p.IBAN, p.Reference, p.Where)
}

// Key is the duplicate check's identity of a payout: two payouts with the
// same key are SameDetails.
func Key(r *api.PayoutRequest) string {
	return fmt.Sprintf("%s|%d|%s|%s", api.NormalizeIBAN(r.BeneficiaryIBAN), r.AmountInMinor,
		strings.ToUpper(r.Currency), strings.ToLower(strings.TrimSpace(r.BeneficiaryReference)))
}

// Matching returns the payments in ps that req would duplicate: same
// details, made within window before now, that may have moved money,
// under another transaction id (the same id is the same payout, which the
// service never pays twice). Newest first.
func Matching(ps []Payment, req *api.PayoutRequest, now time.Time, window time.Duration) []Payment {
	var out []Payment
	for _, p := range ps {
		if p.TransactionID == req.TransactionID || !p.paid() {
			continue
		}
		if window > 0 && !p.At.IsZero() && now.Sub(p.At) > window {
			continue
		}
		pr := api.PayoutRequest{BeneficiaryIBAN: p.IBAN, AmountInMinor: p.AmountInMinor, Currency: p.Currency, BeneficiaryReference: p.Reference}
		if SameDetails(&pr, req) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	return out
}

// ReportReader is the part of the api client the check reads; the report
// is streamed, one record at a time.
type ReportReader interface {
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// Known is everything the duplicate check knows of payouts already made:
// the local record first (it knows this profile's sends at once, even
// when the report lags), then the service's report over the window.
// Indexed by duplicate key and by id, so planning a batch costs one lookup
// per row however long the record and the report.
type Known struct {
	Local  []Payment
	Report []Payment

	localKey, reportKey map[string][]Payment
	localID, reportID   map[string]Payment
}

// Load reads the record and (when r is not nil) the report's payouts of
// the last window.
func Load(ctx context.Context, l Record, r ReportReader, now time.Time, window time.Duration) (*Known, error) {
	k := &Known{}
	if l != nil {
		entries, err := l.Entries()
		if err != nil {
			return nil, err
		}
		k.Local = FromRecord(entries)
	}
	if r != nil {
		q := api.TransactionQuery{Type: api.TransactionPayout}
		if window > 0 {
			q.From = now.Add(-window)
		}
		err := r.StreamTransactions(ctx, q, func(t api.Transaction) error {
			k.Report = append(k.Report, FromReportRecords([]api.Transaction{t})...)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("duplicate check: reading the service's report: %w", err)
		}
	}
	k.index()
	return k, nil
}

// FindIDs adds the report's payouts with these ids, however old. The
// duplicate window bounds the check of details, but an id names one
// payout for ever: the service creates nothing for an id it has seen, so
// an id from last month's export reused in a file would pay nobody. Only
// ids not known already are looked for, and only their rows are kept.
func (k *Known) FindIDs(ctx context.Context, r ReportReader, ids []string) error {
	want := map[string]bool{}
	for _, id := range ids {
		if _, ok := k.ByID(id); id != "" && !ok {
			want[id] = true
		}
	}
	if len(want) == 0 || r == nil {
		return nil
	}
	err := r.StreamTransactions(ctx, api.TransactionQuery{Type: api.TransactionPayout}, func(t api.Transaction) error {
		if want[t.TransactionID] {
			k.Report = append(k.Report, FromReportRecords([]api.Transaction{t})...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("checking transaction ids against the service's whole report: %w", err)
	}
	k.index()
	return nil
}

func (k *Known) index() {
	k.localKey, k.reportKey = map[string][]Payment{}, map[string][]Payment{}
	k.localID, k.reportID = map[string]Payment{}, map[string]Payment{}
	for _, p := range k.Local {
		key := p.key()
		k.localKey[key] = append(k.localKey[key], p)
		k.localID[p.TransactionID] = p // the latest attempt's state wins
	}
	for _, p := range k.Report {
		key := p.key()
		k.reportKey[key] = append(k.reportKey[key], p)
		if _, dup := k.reportID[p.TransactionID]; !dup {
			k.reportID[p.TransactionID] = p
		}
	}
}

func (p Payment) key() string {
	r := api.PayoutRequest{BeneficiaryIBAN: p.IBAN, AmountInMinor: p.AmountInMinor, Currency: p.Currency, BeneficiaryReference: p.Reference}
	return Key(&r)
}

// Matching returns the known payments req would duplicate: local record
// first, then report entries the record does not already name.
func (k *Known) Matching(req *api.PayoutRequest, now time.Time, window time.Duration) []Payment {
	if k.localKey == nil {
		k.index()
	}
	key := Key(req)
	out := Matching(k.localKey[key], req, now, window)
	seen := map[string]bool{}
	for _, p := range out {
		seen[p.TransactionID] = true
	}
	for _, p := range Matching(k.reportKey[key], req, now, window) {
		if !seen[p.TransactionID] {
			out = append(out, p)
		}
	}
	return out
}

// SamePayee returns the known payments to the same IBAN under the same
// reference as req but for another amount or currency, made within
// window before now, that may have moved money: req is most likely a
// corrected version of a payout already sent, and sending it pays the
// payee a second time. Newest first, the record's before the report's.
func (k *Known) SamePayee(req *api.PayoutRequest, now time.Time, window time.Duration) []Payment {
	iban := api.NormalizeIBAN(req.BeneficiaryIBAN)
	ref := strings.TrimSpace(req.BeneficiaryReference)
	if iban == "" || ref == "" {
		return nil
	}
	var out []Payment
	seen := map[string]bool{}
	for _, ps := range [][]Payment{k.Local, k.Report} {
		var found []Payment
		for _, p := range ps {
			if seen[p.TransactionID] || p.TransactionID == req.TransactionID || !p.paid() {
				continue
			}
			if window > 0 && !p.At.IsZero() && now.Sub(p.At) > window {
				continue
			}
			if p.IBAN != iban || !strings.EqualFold(strings.TrimSpace(p.Reference), ref) {
				continue
			}
			if p.AmountInMinor == req.AmountInMinor && strings.EqualFold(p.Currency, req.Currency) {
				continue // the same details: the duplicate check's case
			}
			found = append(found, p)
		}
		sort.SliceStable(found, func(i, j int) bool { return found[i].At.After(found[j].At) })
		for _, p := range found {
			seen[p.TransactionID] = true
		}
		out = append(out, found...)
	}
	return out
}

// ByID returns what is known of one transaction id (record first).
func (k *Known) ByID(id string) (Payment, bool) {
	if p, ok := k.LocalByID(id); ok {
		return p, true
	}
	if k.reportID == nil {
		k.index()
	}
	p, ok := k.reportID[id]
	return p, ok
}

// LocalByID returns what the audit record holds of one transaction id.
func (k *Known) LocalByID(id string) (Payment, bool) {
	if k.localID == nil {
		k.index()
	}
	p, ok := k.localID[id]
	return p, ok
}

// InReport reports whether the service's report holds id.
func (k *Known) InReport(id string) bool {
	if k.reportID == nil {
		k.index()
	}
	_, ok := k.reportID[id]
	return ok
}
