package sandbox

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// The sandbox's payout accounts, one per currency and rail. Their ids are
// the merchant_account_id of payments and mandates into them.
const (
	MerchantAccountGBP  = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826"
	MerchantAccountEUR  = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000978"
	MerchantAccountName = "Paydash Sandbox Ltd"
)

// MerchantAccount describes one payout account.
type MerchantAccount struct {
	ID       string `json:"merchant_account_id"`
	Currency string `json:"currency"`
	IBAN     string `json:"iban"`
	// SortCode and AccountNumber are set for the GBP account (they are the
	// middle of its GB IBAN).
	SortCode      string `json:"sort_code,omitempty"`
	AccountNumber string `json:"account_number,omitempty"`
	Name          string `json:"account_holder_name"`
	// SchemeID is the rail payouts leave on (payout_executed's scheme_id).
	SchemeID string `json:"scheme_id"`
}

// accountDefs are the fixed payout accounts: GBP on Faster Payments with a
// GB IBAN, EUR on SEPA with an IE IBAN.
func accountDefs() []MerchantAccount {
	return []MerchantAccount{
		{ID: MerchantAccountGBP, Currency: "GBP", IBAN: makeIBAN("GB", "PYDH04007500000826"),
			SortCode: "040075", AccountNumber: "00000826", Name: MerchantAccountName, SchemeID: api.SchemeFasterPayments},
		{ID: MerchantAccountEUR, Currency: "EUR", IBAN: makeIBAN("IE", "PYDH99007500000978"),
			Name: MerchantAccountName, SchemeID: api.SchemeSEPACreditTransfer},
	}
}

type account struct {
	MerchantAccount
	status             string
	current, available int64
}

// Kinds, states and plans of a ledger record, packed small because the
// seeded history can hold a million of them.
type txnKind uint8

const (
	kindPayoutTxn txnKind = iota
	kindFundingTxn
)

type txnStatus uint8

const (
	stAuthorised txnStatus = iota
	stSubmitted
	stSettled
	stFailed
)

var statusNames = [...]string{api.StateAuthorised, api.StateSubmitted, api.StateSettled, api.StateFailed}
var kindNames = [...]string{api.TransactionPayout, api.TransactionFunding}

// plan is where a live payout is headed (chosen by the magic rules).
type plan uint8

const (
	planSettle plan = iota // authorised -> submitted -> settled
	planFail               // authorised -> failed (reason from FAIL[:reason])
	planReturn             // authorised -> submitted -> failed (returned)
)

// txn is one record of the transaction report. Times are UTC Unix
// nanoseconds at 100 ns resolution; 0 means "not reached".
type txn struct {
	id, name, iban, ref, context   string
	amount                         int64
	authorised, submitted, settled int64
	kind                           txnKind
	status                         txnStatus
	plan                           plan
	acct                           uint8
	// plain: no string of the record needs JSON escaping.
	plain bool
}

// booked is when the record entered the ledger: the report filters and
// orders by it (authorised_at of a payout, settled_at of a funding).
func (t *txn) booked() int64 {
	if t.authorised != 0 {
		return t.authorised
	}
	return t.settled
}

// ledger is the payout accounts and their records, under one mutex.
type ledger struct {
	mu       sync.Mutex
	clock    clock.Clock
	hooks    *webhooks
	log      *slog.Logger
	step     time.Duration
	deny     map[string]bool
	accounts []*account
	// hist is the seeded history, generated when read; txns are the
	// records booked since (live payouts, fundings), after it in the
	// report.
	hist *history
	txns []txn
	byID map[string]int
	// rejected maps a rejected payout's transaction_id to its reason; it
	// keeps the id taken (a repeat is a no-op) without a report record.
	rejected map[string]string
	// reasons holds the failure reason of live payouts headed to failure.
	reasons map[string]string
	timers  map[string]clock.Timer
	closed  bool
}

func newLedger(o Options, hooks *webhooks) (*ledger, error) {
	l := &ledger{
		clock:    o.Clock,
		hooks:    hooks,
		log:      o.Logger,
		step:     o.StepDelay,
		deny:     map[string]bool{},
		rejected: map[string]string{},
		reasons:  map[string]string{},
		timers:   map[string]clock.Timer{},
	}
	for _, name := range o.DenyList {
		l.deny[normalizeName(name)] = true
	}
	for _, def := range accountDefs() {
		l.accounts = append(l.accounts, &account{MerchantAccount: def, status: api.AccountEnabled})
	}
	for cur, amt := range o.InitialFunds {
		if l.account(cur) == nil {
			return nil, fmt.Errorf("sandbox: Options.InitialFunds names %s, but the sandbox has payout accounts for GBP and EUR only", cur)
		}
		if amt < 0 {
			return nil, fmt.Errorf("sandbox: Options.InitialFunds[%s] is negative (%d)", cur, amt)
		}
	}
	l.hist = newHistory(o, l.clock.Now(), l.accounts)
	l.byID = map[string]int{}
	return l, nil
}

// account returns the payout account of a currency, or nil.
func (l *ledger) account(currency string) *account {
	for _, a := range l.accounts {
		if a.Currency == currency {
			return a
		}
	}
	return nil
}

func (l *ledger) acctIndex(currency string) (uint8, bool) {
	for i, a := range l.accounts {
		if a.Currency == currency {
			return uint8(i), true
		}
	}
	return 0, false
}

// accountCurrency is api.ValidateOptions.AccountCurrency.
func (l *ledger) accountCurrency(id string) (string, bool) {
	for _, a := range l.accounts {
		if a.ID == id {
			return a.Currency, true
		}
	}
	return "", false
}

func (l *ledger) currencies() string {
	names := make([]string, len(l.accounts))
	for i, a := range l.accounts {
		names[i] = a.Currency
	}
	return strings.Join(names, " or ")
}

func (l *ledger) balances() []api.Balance {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]api.Balance, len(l.accounts))
	for i, a := range l.accounts {
		out[i] = api.Balance{Currency: a.Currency, IBAN: a.IBAN, Status: a.status,
			CurrentBalanceInMinor: a.current, AvailableBalanceInMinor: a.available}
	}
	return out
}

func (l *ledger) merchantAccounts() []MerchantAccount {
	out := make([]MerchantAccount, len(l.accounts))
	for i, a := range l.accounts {
		out[i] = a.MerchantAccount
	}
	return out
}

func (l *ledger) setStatus(currency, status string) error {
	if status != api.AccountEnabled && status != api.AccountDisabled {
		return &invalidError{api.Problems{{Field: "status", Message: fmt.Sprintf("must be %s or %s, not %q", api.AccountEnabled, api.AccountDisabled, status)}}}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.account(currency)
	if a == nil {
		return fmt.Errorf("no payout account for %q; the sandbox has %s: %w", currency, l.currencies(), ErrNotFound)
	}
	a.status = status
	return nil
}

// invalidError is a Go-level control call with bad arguments; the control
// endpoints answer it with 400 and the errors map.
type invalidError struct{ problems api.Problems }

func (e *invalidError) Error() string { return e.problems.Error() }
func (e *invalidError) Unwrap() error { return ErrInvalid }

// fundRequest is the body of POST /sandbox/fund.
type fundRequest struct {
	Currency      string `json:"currency"`
	AmountInMinor int64  `json:"amount_in_minor"`
	PayerName     string `json:"payer_name"`
	// PayerIBAN and Reference are optional; a payer IBAN is made up when
	// absent.
	PayerIBAN string `json:"payer_iban,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// fund books an incoming transfer: a settled funding record, both balances
// up. emit sends external_payment_received (the money arrived at the
// account's IBAN rather than by merchant account id).
func (l *ledger) fund(req fundRequest, emit bool) (api.Transaction, error) {
	var ps api.Problems
	idx, ok := l.acctIndex(req.Currency)
	if !ok {
		ps = append(ps, api.Problem{Field: "currency", Message: fmt.Sprintf("must be %s (a currency with a payout account), not %q", l.currencies(), req.Currency)})
	}
	if req.AmountInMinor <= 0 {
		ps = append(ps, api.Problem{Field: "amount_in_minor", Message: "must be more than zero; it is in minor units, so 100 is 1.00"})
	}
	if req.PayerIBAN != "" {
		req.PayerIBAN = api.NormalizeIBAN(req.PayerIBAN)
		if err := api.ValidateIBAN(req.PayerIBAN); err != nil {
			ps = append(ps, api.Problem{Field: "payer_iban", Message: err.Error()})
		}
	}
	if len(ps) > 0 {
		return api.Transaction{}, &invalidError{ps}
	}
	if strings.TrimSpace(req.PayerName) == "" {
		req.PayerName = "Sandbox top-up"
	}
	id := uuid.NewString()
	if req.PayerIBAN == "" {
		req.PayerIBAN = randomIBAN(req.Currency)
	}
	if req.Reference == "" {
		req.Reference = "TOP-UP " + strings.ToUpper(id[:8])
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.accounts[idx]
	if a.current > math.MaxInt64-req.AmountInMinor {
		return api.Transaction{}, &invalidError{api.Problems{{Field: "amount_in_minor", Message: "would overflow the balance; fund a smaller amount"}}}
	}
	now := reportNow(l.clock)
	t := txn{id: id, kind: kindFundingTxn, status: stSettled, acct: idx, settled: now,
		name: req.PayerName, iban: req.PayerIBAN, ref: req.Reference, amount: req.AmountInMinor}
	a.current += t.amount
	a.available += t.amount
	l.append(t)
	if emit {
		l.hooks.enqueueLogged(l.externalPaymentEvent(&t, a))
	}
	return l.toAPI(&t), nil
}

// append adds a record; the caller holds mu.
func (l *ledger) append(t txn) {
	t.plain = plainStrings(t.id, t.name, t.iban, t.ref, t.context)
	l.byID[t.id] = len(l.txns)
	l.txns = append(l.txns, t)
}

// toAPI converts a record for the Go API and tests; the report streams
// its own encoding of the same fields.
func (l *ledger) toAPI(t *txn) api.Transaction {
	return api.Transaction{
		TransactionID:        t.id,
		Type:                 kindNames[t.kind],
		AuthorisedAt:         reportTime(t.authorised),
		SubmittedAt:          reportTime(t.submitted),
		SettledAt:            reportTime(t.settled),
		BeneficiaryName:      t.name,
		BeneficiaryIBAN:      t.iban,
		BeneficiaryReference: t.ref,
		AmountInMinor:        t.amount,
		Currency:             l.accounts[t.acct].Currency,
		ContextCode:          t.context,
		Status:               statusNames[t.status],
	}
}

func reportTime(ns int64) api.ReportTime {
	if ns == 0 {
		return api.ReportTime{}
	}
	return api.ReportTime{Time: time.Unix(0, ns).UTC()}
}

// reportNow is the clock's time at the report's 100 ns resolution.
func reportNow(c clock.Clock) int64 {
	return c.Now().UTC().Truncate(100 * time.Nanosecond).UnixNano()
}

// eventTime renders a record time for an event body.
func eventTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(api.WebhookTimeLayout)
}

// close stops every pending payout step.
func (l *ledger) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for id, t := range l.timers {
		t.Stop()
		delete(l.timers, id)
	}
}
