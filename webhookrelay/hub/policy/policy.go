package policy

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
)

// Defaults of the hub's flags.
const (
	DefaultApprovers = 1
	DefaultTTL       = 24 * time.Hour
	// SumWindow is how far back payouts below the threshold to one payee
	// add up (from one requester, and from everyone).
	SumWindow = 24 * time.Hour
)

// Policy is the hub's approval rule.
type Policy struct {
	// Over maps a currency to the amount, in minor units, above which a
	// payout needs approval (0: every payout in that currency). A currency
	// not listed needs approval for every payout.
	Over map[string]int64
	// Approvers is how many distinct people must approve (at least 1).
	Approvers int
	// TTL is how long a request waits for its approvals before it lapses.
	TTL time.Duration
}

// Validate says what is wrong with p, as the flag that sets it.
func (p Policy) Validate() error {
	if p.Approvers < 1 {
		return fmt.Errorf("--approvers %d: at least 1 person must approve", p.Approvers)
	}
	if p.TTL <= 0 {
		return fmt.Errorf("--approval-ttl %s: must be positive, e.g. 24h", p.TTL)
	}
	for c, v := range p.Over {
		if v < 0 {
			return fmt.Errorf("--approve-over %s: the threshold must not be negative", c)
		}
	}
	return nil
}

// ParseThresholds reads --approve-over "GBP=1000.00,EUR=1000.00" (amounts
// in major units, as the operator writes them) into minor units.
func ParseThresholds(s string) (map[string]int64, error) {
	out := map[string]int64{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		cur, amt, ok := strings.Cut(item, "=")
		cur = strings.ToUpper(strings.TrimSpace(cur))
		if !ok || cur == "" {
			return nil, fmt.Errorf("--approve-over %q: want CURRENCY=AMOUNT, e.g. GBP=1000.00", item)
		}
		if _, known := api.CurrencyDigits(cur); !known {
			return nil, fmt.Errorf("--approve-over %q: unknown currency %s", item, cur)
		}
		if _, dup := out[cur]; dup {
			return nil, fmt.Errorf("--approve-over names %s twice", cur)
		}
		minor, err := api.ParseAmount(strings.TrimSpace(amt), cur, true)
		if err != nil {
			return nil, fmt.Errorf("--approve-over %s: %w", cur, err)
		}
		out[cur] = minor
	}
	return out, nil
}

// Describe says the thresholds in words, for the hub's start and the
// operator's "needs approval because".
func (p Policy) Describe() string {
	if len(p.Over) == 0 {
		return "every payout needs approval"
	}
	curs := make([]string, 0, len(p.Over))
	for c := range p.Over {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	parts := make([]string, len(curs))
	for i, c := range curs {
		if p.Over[c] == 0 {
			parts[i] = "every " + c + " payout"
		} else {
			parts[i] = c + " above " + api.FormatAmount(p.Over[c], c)
		}
	}
	return "approval needed for " + strings.Join(parts, ", ") + "; every payout in another currency"
}

// Decision is the policy's answer for one payout.
type Decision struct {
	Needed bool
	// Reason says why approval is needed, or why not.
	Reason string
}

// Decide says whether a payout of amount in currency needs approval,
// given recentSum: what the same requester sent the same payee in the
// same currency without approval over SumWindow.
func (p Policy) Decide(amount int64, currency string, recentSum int64) Decision {
	return p.DecideSums(amount, currency, Sums{Requester: recentSum})
}

// Sums are what was sent without approval to one payee in one currency
// over SumWindow: by the requester (Requester), and by everyone (Payee).
type Sums struct {
	Requester int64
	Payee     int64
}

// DecideSums says whether a payout of amount in currency needs approval,
// given what was already sent to its payee: both limits hold, so neither
// one person nor several people splitting among themselves can pay one
// payee more than the threshold in 24 hours without a second person.
func (p Policy) DecideSums(amount int64, currency string, s Sums) Decision {
	limit, listed := p.Over[currency]
	switch {
	case !listed:
		return Decision{true, "every " + currency + " payout needs approval (no threshold set for " + currency + ")"}
	case amount > limit:
		if limit == 0 {
			return Decision{true, "every " + currency + " payout needs approval"}
		}
		return Decision{true, fmt.Sprintf("%s is above the %s threshold", api.FormatAmount(amount, currency), api.FormatAmount(limit, currency))}
	case s.Requester+amount > limit:
		return Decision{true, fmt.Sprintf("with %s sent to this payee by the same person in the last 24 h, the total %s is above the %s threshold",
			api.FormatAmount(s.Requester, currency), api.FormatAmount(s.Requester+amount, currency), api.FormatAmount(limit, currency))}
	case s.Payee+amount > limit:
		return Decision{true, fmt.Sprintf("with %s sent to this payee by everyone in the last 24 h, the total %s is above the %s threshold",
			api.FormatAmount(s.Payee, currency), api.FormatAmount(s.Payee+amount, currency), api.FormatAmount(limit, currency))}
	}
	return Decision{false, fmt.Sprintf("%s is within the %s threshold", api.FormatAmount(amount, currency), api.FormatAmount(limit, currency))}
}

// Sent is a payout the hub sent without approval, as the sum rule reads it.
type Sent struct {
	Requester     string
	IBAN          string
	Currency      string
	AmountInMinor int64
	At            time.Time
}

// RecentSums adds up what was sent to iban in currency without approval
// within SumWindow before now: by requester, and by everyone.
func RecentSums(sent []Sent, requester, iban, currency string, now time.Time) Sums {
	iban = api.NormalizeIBAN(iban)
	var s Sums
	for _, x := range sent {
		if api.NormalizeIBAN(x.IBAN) == iban && x.Currency == currency && !x.At.After(now) && now.Sub(x.At) < SumWindow {
			s.Payee += x.AmountInMinor
			if x.Requester == requester {
				s.Requester += x.AmountInMinor
			}
		}
	}
	return s
}

// RecentSum adds up what requester sent to iban in currency without
// approval within SumWindow before now.
func RecentSum(sent []Sent, requester, iban, currency string, now time.Time) int64 {
	iban = api.NormalizeIBAN(iban)
	var sum int64
	for _, s := range sent {
		if s.Requester == requester && api.NormalizeIBAN(s.IBAN) == iban && s.Currency == currency &&
			!s.At.After(now) && now.Sub(s.At) < SumWindow {
			sum += s.AmountInMinor
		}
	}
	return sum
}

// CheckApprovers refuses a policy the users file cannot meet: fewer people
// hold the approve role than the policy needs, so no request could ever
// be approved (a requester never approves their own).
func CheckApprovers(need int, holders []string) error {
	if len(holders) < need {
		return fmt.Errorf("--approvers %d needs at least %d users with the approve role; the users file has %d (%s): add one with paydash relay user add NAME --role approve --users FILE",
			need, need, len(holders), strings.Join(holders, ", "))
	}
	return nil
}

// Expired reports whether a request made at requested has lapsed at now.
func (p Policy) Expired(requested, now time.Time) bool {
	return !now.Before(requested.Add(p.TTL))
}
