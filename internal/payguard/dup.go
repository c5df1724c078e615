package payguard

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
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
}

func (p Payment) String() string {
	s := fmt.Sprintf("%s on %s, %s to %s (%s), ref %q, from the %s",
		p.TransactionID, p.At.UTC().Format("2006-01-02 15:04 MST"), api.FormatAmount(p.AmountInMinor, p.Currency),
		p.Name, p.IBAN, p.Reference, p.Where)
	if p.Outcome != "" {
		s += ", " + p.Outcome
	}
	return s
}

// paid reports whether the payment may have moved money: a definite
// refusal or a rejection did not.
func (p Payment) paid() bool {
	switch p.Outcome {
	case OutcomeRefused, OutcomeRejected, OutcomeExisting:
		return false
	}
	return true
}

// FromRecord folds the record's lines into one Payment per attempted
// transaction id, with its last outcome, oldest first.
func FromRecord(entries []Entry) []Payment {
	idx := map[string]int{}
	var out []Payment
	for _, e := range entries {
		switch e.Event {
		case EventAttempt:
			if i, ok := idx[e.TransactionID]; ok {
				// A re-send of the same id (a resumed batch): same payout.
				out[i].Outcome = ""
				continue
			}
			idx[e.TransactionID] = len(out)
			out = append(out, Payment{TransactionID: e.TransactionID, At: e.At, Name: e.Name, IBAN: api.NormalizeIBAN(e.IBAN),
				Reference: e.Reference, AmountInMinor: e.AmountInMinor, Currency: e.Currency, Where: FromLocalRecord,
				BatchFile: e.BatchFile, Line: e.Line})
		case EventOutcome:
			if i, ok := idx[e.TransactionID]; ok {
				out[i].Outcome = e.Outcome
			}
		}
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

// ReportReader is the part of the api client the check reads.
type ReportReader interface {
	Transactions(ctx context.Context, q api.TransactionQuery) ([]api.Transaction, error)
}

// Known is everything the duplicate check knows of payouts already made:
// the local record first (it knows this profile's sends at once, even
// when the report lags), then the service's report over the window.
type Known struct {
	Local  []Payment
	Report []Payment
}

// Load reads the record and (when r is not nil) the report's payouts of
// the last window.
func Load(ctx context.Context, l *Log, r ReportReader, now time.Time, window time.Duration) (*Known, error) {
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
		txs, err := r.Transactions(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("duplicate check: reading the service's report: %w", err)
		}
		k.Report = FromReportRecords(txs)
	}
	return k, nil
}

// Matching returns the known payments req would duplicate: local record
// first, then report entries the record does not already name.
func (k *Known) Matching(req *api.PayoutRequest, now time.Time, window time.Duration) []Payment {
	out := Matching(k.Local, req, now, window)
	seen := map[string]bool{}
	for _, p := range out {
		seen[p.TransactionID] = true
	}
	for _, p := range Matching(k.Report, req, now, window) {
		if !seen[p.TransactionID] {
			out = append(out, p)
		}
	}
	return out
}

// ByID returns what is known of one transaction id (record first).
func (k *Known) ByID(id string) (Payment, bool) {
	for _, ps := range [][]Payment{k.Local, k.Report} {
		for _, p := range ps {
			if p.TransactionID == id {
				return p, true
			}
		}
	}
	return Payment{}, false
}

// InReport reports whether the service's report holds id.
func (k *Known) InReport(id string) bool {
	for _, p := range k.Report {
		if p.TransactionID == id {
			return true
		}
	}
	return false
}
