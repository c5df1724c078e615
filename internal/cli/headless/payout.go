package headless

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/payout"
	"github.com/paydash/paydash/relayclient"
	"github.com/paydash/paydash/termtext"
)

// PayoutOptions are the flags of `paydash payout create`.
type PayoutOptions struct {
	Name            string
	IBAN            string
	Reference       string
	Amount          string
	Currency        string
	ContextCode     string
	TransactionID   string
	Yes             bool
	JSON            bool
	Wait            time.Duration
	AllowDuplicate  bool
	DuplicateWindow time.Duration
}

// Bind registers the flags.
func (o *PayoutOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Name, "name", "", "beneficiary name (required)")
	fs.StringVar(&o.IBAN, "iban", "", "beneficiary IBAN (required)")
	fs.StringVar(&o.Reference, "reference", "", "reference the beneficiary sees (required)")
	fs.StringVar(&o.Amount, "amount", "", "amount in major units, e.g. 12.50 (required)")
	fs.StringVar(&o.Currency, "currency", "", "currency of the payout account to pay from, e.g. GBP (required)")
	fs.StringVar(&o.ContextCode, "context-code", api.ContextCodeWithdrawal, "purpose code")
	fs.StringVar(&o.TransactionID, "transaction-id", "", "payout id (default: a new UUID; reuse it to retry safely, the service never pays one id twice)")
	fs.BoolVarP(&o.Yes, "yes", "y", false, "send without asking for confirmation (required when not at a terminal)")
	fs.BoolVar(&o.JSON, "json", false, "print the result as JSON")
	fs.DurationVar(&o.Wait, "wait", 0, "follow the payout up to this long to its final state (relay, or the report when no relay answers); exit non-zero when it is rejected or fails")
	fs.BoolVar(&o.AllowDuplicate, "allow-duplicate", false, "send even when a payout with the same IBAN, amount, currency and reference was made within --duplicate-window")
	fs.DurationVar(&o.DuplicateWindow, "duplicate-window", payout.DefaultWindow, "how far back a payout with the same IBAN, amount, currency and reference counts as a duplicate")
}

// Request builds the payout request from the flags.
func (o *PayoutOptions) Request() (*api.PayoutRequest, []string) {
	var usage []string
	cur := strings.ToUpper(strings.TrimSpace(o.Currency))
	req := &api.PayoutRequest{
		TransactionID:        strings.TrimSpace(o.TransactionID),
		BeneficiaryName:      strings.TrimSpace(o.Name),
		BeneficiaryIBAN:      api.NormalizeIBAN(o.IBAN),
		BeneficiaryReference: strings.TrimSpace(o.Reference),
		Currency:             cur,
		ContextCode:          strings.TrimSpace(o.ContextCode),
	}
	if req.TransactionID == "" {
		req.TransactionID = uuid.NewString()
	}
	if o.Amount == "" {
		usage = append(usage, "--amount is required, e.g. --amount 12.50")
	} else if minor, err := api.ParseAmount(o.Amount, cur, false); err != nil {
		usage = append(usage, fmt.Sprintf("--amount: %v", err))
	} else {
		req.AmountInMinor = minor
	}
	return req, usage
}

// PayoutCreator is the part of the api client `payout create` uses.
type PayoutCreator interface {
	CreatePayout(ctx context.Context, req *api.PayoutRequest) error
}

// PayoutService is what the guarded command also reads: the report (for
// duplicates, reused ids and --wait) and balances (to refuse a payout the
// account cannot fund). *api.Client is one.
type PayoutService interface {
	PayoutCreator
	payout.ReportReader
	Balances(ctx context.Context) ([]api.Balance, error)
}

// PayoutResult is what `payout create --json` prints.
type PayoutResult struct {
	TransactionID string `json:"transaction_id"`
	Accepted      bool   `json:"accepted"`
	HTTPStatus    int    `json:"http_status,omitempty"`
	Error         string `json:"error,omitempty"`
	// State is the final state --wait saw, and StateFrom where it came
	// from ("relay" or "report").
	State     string `json:"state,omitempty"`
	Reason    string `json:"reason,omitempty"`
	StateFrom string `json:"state_from,omitempty"`
	// Returned is true when the payout failed after it was submitted: the
	// money went out and came back.
	Returned bool `json:"returned,omitempty"`
	// DuplicateOf lists earlier payouts this one matches (sent only with
	// --allow-duplicate).
	DuplicateOf []payout.Payment `json:"duplicate_of,omitempty"`
	// AlreadySent is set when the transaction id was used before for the
	// same payout: the service created nothing new.
	AlreadySent *payout.Payment `json:"already_sent,omitempty"`
}

// Target says where money would go, for the confirmation, and what
// guards the send.
type Target struct {
	Profile    string
	Production bool
	// Audit is the profile's audit record; nil keeps none (tests of the
	// prompt alone).
	Audit *payout.Log
	// RelayURL and RelayToken are followed by --wait when reachable.
	RelayURL   string
	RelayToken string
}

// Exit codes of --wait beyond the shared ones: the payout's final state
// was not seen in time.
const exitNoFinalState = cmdutil.ExitFailure

// CreatePayout validates, checks for duplicates and funds, confirms,
// records and sends one payout. Exit status 0 means the service accepted
// it (202) and, with --wait, that it settled.
func CreatePayout(ctx context.Context, s *cmdutil.Streams, c PayoutCreator, t Target, o *PayoutOptions) error {
	req, usage := o.Request()
	probs := api.ValidatePayout(req)
	if len(usage) > 0 {
		probs = dropFields(probs, "amount_in_minor")
	}
	if len(usage) > 0 || len(probs) > 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, &ProblemsError{What: "payout", Usage: usage, Problems: probs})
	}
	if !o.Yes && !s.Interactive() {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was sent. Pass --yes to send this payout (profile %q)", t.Profile))
	}
	window := o.DuplicateWindow
	if window == 0 {
		window = payout.DefaultWindow
	}
	res := PayoutResult{TransactionID: req.TransactionID}
	svc, guarded := c.(PayoutService)
	var matches []payout.Payment
	if guarded {
		known, err := payout.Load(ctx, t.Audit, svc, time.Now(), window)
		if err != nil {
			return err
		}
		if o.TransactionID != "" {
			if err := known.FindIDs(ctx, svc, []string{req.TransactionID}); err != nil {
				return err
			}
			if err := checkReusedID(t.Audit, known, req, &res); err != nil {
				return err
			}
		}
		matches = known.Matching(req, time.Now(), window)
		// A match the record shows only "accepted" may have been rejected
		// since (rejections never enter the report): what the report and
		// the relay know now is recorded and counted first.
		var states payout.FinalStates
		if t.RelayURL != "" {
			states = relayclient.History{URL: t.RelayURL, Token: t.RelayToken}
		}
		matches = payout.Resolve(ctx, t.Audit, known, states, matches, time.Now())
		if len(matches) > 0 && !o.AllowDuplicate {
			return refuseDuplicate(s, o, req, matches)
		}
		res.DuplicateOf = matches
		if res.AlreadySent == nil {
			if err := checkFunds(ctx, svc, req); err != nil {
				return err
			}
		}
	}
	if err := confirmPayout(s, t, req, o.Yes, matches); err != nil {
		return err
	}
	if t.Audit != nil {
		m, err := t.Audit.Reserve(ctx, payout.Entry{Source: payout.SourceCreate, TransactionID: req.TransactionID,
			Name: req.BeneficiaryName, IBAN: req.BeneficiaryIBAN, Reference: req.BeneficiaryReference,
			AmountInMinor: req.AmountInMinor, Currency: req.Currency, AllowedDuplicate: len(matches) > 0}, window, o.AllowDuplicate)
		if err != nil {
			return err
		}
		if len(m) > 0 && !o.AllowDuplicate {
			return refuseDuplicate(s, o, req, m) // sent by another paydash since the check
		}
	}
	var follow *payoutFollower
	if o.Wait > 0 && guarded {
		follow = startFollow(ctx, s, t, svc, req.TransactionID)
		defer follow.stop()
	}
	err := c.CreatePayout(ctx, req)
	res.Accepted = err == nil
	if t.Audit != nil {
		outcome, detail := payout.OutcomeAccepted, ""
		if res.AlreadySent != nil {
			outcome = payout.OutcomeExisting
		}
		if err != nil {
			outcome, detail = sendOutcome(err), err.Error()
		}
		if aerr := t.Audit.Outcome(req.TransactionID, outcome, detail); aerr != nil {
			fmt.Fprintf(s.Err, "warning: %s\n", termtext.Safe(aerr.Error()))
		}
	}
	if err != nil {
		return notAccepted(s, o, req, &res, err)
	}
	res.HTTPStatus = 202
	if res.AlreadySent != nil {
		fmt.Fprintf(s.Err, "transaction id %s was already sent on %s for this payout; the service created nothing new\n",
			req.TransactionID, res.AlreadySent.At.UTC().Format("2006-01-02 15:04 MST"))
	}
	if follow == nil {
		if o.JSON {
			return cmdutil.WriteJSON(s.Out, res)
		}
		fmt.Fprintln(s.Out, req.TransactionID)
		if s.ErrTerminal {
			fmt.Fprintf(s.Err, "accepted: %s to %s; its outcome arrives by webhook (paydash events tail), or pass --wait to follow it here\n",
				api.FormatAmount(req.AmountInMinor, req.Currency), termtext.Safe(req.BeneficiaryName))
		}
		return nil
	}
	st := follow.wait(ctx, o.Wait)
	res.State, res.Reason, res.StateFrom = st.state, st.reason, st.from
	res.Returned = st.state == api.StateFailed && st.submitted
	if t.Audit != nil && st.state != "" {
		detail := st.reason
		if res.Returned && detail == "" {
			detail = reasonReturned
		}
		_ = t.Audit.Outcome(req.TransactionID, st.state, detail)
	}
	if o.JSON {
		if werr := cmdutil.WriteJSON(s.Out, res); werr != nil {
			return werr
		}
	} else {
		fmt.Fprintln(s.Out, req.TransactionID)
	}
	switch st.state {
	case api.StateSettled, api.StateExecuted:
		fmt.Fprintf(s.Err, "settled: %s to %s (state from the %s)\n", api.FormatAmount(req.AmountInMinor, req.Currency), termtext.Safe(req.BeneficiaryName), st.from)
		return nil
	case api.StateRejected, api.StateFailed:
		reason := st.reason
		if reason == "" {
			reason = "no reason given"
			if st.from != "relay" {
				reason += " (the service report carries none; the relay, when reachable, does: paydash events tail --since 0 --payout " + req.TransactionID + ")"
			}
		}
		if res.Returned {
			return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("payout %s returned: the money went out to the payee's bank and came back, so the payee was NOT paid (%s; state from the %s)",
				req.TransactionID, reason, st.from))
		}
		return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("payout %s %s: %s (state from the %s); nothing was paid", req.TransactionID, st.state, reason, st.from))
	}
	if ctx.Err() != nil {
		// Interrupted (ctrl+c), not timed out: the payout went and was
		// accepted; only the waiting stopped.
		return cmdutil.Exit(exitNoFinalState, fmt.Errorf("payout %s was sent and accepted; stopped waiting for its final state (interrupted). Follow it with: paydash events tail --since 0 --payout %s",
			req.TransactionID, req.TransactionID))
	}
	return cmdutil.Exit(exitNoFinalState, fmt.Errorf("payout %s: no final state within %s (%s); follow it with: paydash events tail --since 0 --payout %s "+
		"(the relay has every state, a rejection too), or paydash transactions --search %s (the report lists it once authorised, never if rejected)",
		req.TransactionID, o.Wait, st.note, req.TransactionID, req.TransactionID))
}

// checkReusedID refuses a --transaction-id that was used before for a
// different payout: the service would answer 202 and create nothing, so
// "success" would be a lie. The same payout under the same id is a safe
// retry, noted in res.
func checkReusedID(audit *payout.Log, known *payout.Known, req *api.PayoutRequest, res *PayoutResult) error {
	p, ok := known.ByID(req.TransactionID)
	if !ok {
		return nil
	}
	if other := known.UsedFor(req.TransactionID, req); other != "" {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("transaction id %s was already used %s; "+
			"the service would create nothing for this one. Nothing was sent: leave out --transaction-id to send it under a new id", req.TransactionID, other))
	}
	if p.Where == payout.FromReport || p.Outcome == payout.OutcomeAccepted || p.Outcome == payout.OutcomeSettled {
		res.AlreadySent = &p
	}
	return nil
}

func refuseDuplicate(s *cmdutil.Streams, o *PayoutOptions, req *api.PayoutRequest, matches []payout.Payment) error {
	var b strings.Builder
	fmt.Fprintf(&b, "possible duplicate: %s to %s with reference %q matches %d payout(s) made within %s:",
		api.FormatAmount(req.AmountInMinor, req.Currency), req.BeneficiaryIBAN, req.BeneficiaryReference, len(matches), o.DuplicateWindow)
	for _, m := range matches {
		b.WriteString("\n  " + m.String())
	}
	b.WriteString("\nNothing was sent. If this is a new payment, pass --allow-duplicate to send it")
	if o.JSON {
		_ = cmdutil.WriteJSON(s.Out, PayoutResult{TransactionID: req.TransactionID, Error: "duplicate", DuplicateOf: matches})
	}
	return cmdutil.Exit(cmdutil.ExitNotAccepted, errors.New(b.String()))
}

// checkFunds refuses a payout its account cannot fund now, as a bank
// portal does: the service would reject it (insufficient funds) after
// answering 202.
func checkFunds(ctx context.Context, c PayoutService, req *api.PayoutRequest) error {
	bals, err := c.Balances(ctx)
	if err != nil {
		return fmt.Errorf("checking the %s balance before sending: %w (nothing was sent)", req.Currency, err)
	}
	for _, b := range bals {
		if !strings.EqualFold(b.Currency, req.Currency) {
			continue
		}
		if b.Status == api.AccountDisabled {
			return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("the %s payout account is disabled; nothing was sent", req.Currency))
		}
		if req.AmountInMinor > b.AvailableBalanceInMinor {
			return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("%s exceeds the available %s balance of %s; the service would reject it (insufficient funds). Nothing was sent",
				api.FormatAmount(req.AmountInMinor, req.Currency), req.Currency, api.FormatAmount(b.AvailableBalanceInMinor, req.Currency)))
		}
		return nil
	}
	return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("the profile has no %s payout account; nothing was sent", req.Currency))
}

// sendOutcome classifies a failed send for the audit record: a 4xx
// (other than 408/429) is a definite refusal, anything else unknown.
func sendOutcome(err error) string {
	if api.IsRefusal(err) {
		return payout.OutcomeRefused
	}
	return payout.OutcomeUnknown
}

func notAccepted(s *cmdutil.Streams, o *PayoutOptions, req *api.PayoutRequest, res *PayoutResult, err error) error {
	var ae *api.Error
	if errors.As(err, &ae) {
		res.HTTPStatus = ae.StatusCode
	}
	res.Error = err.Error()
	if o.JSON {
		if werr := cmdutil.WriteJSON(s.Out, res); werr != nil {
			return werr
		}
	}
	retry := fmt.Sprintf("re-run the same command with --transaction-id %s", req.TransactionID)
	if o.TransactionID != "" {
		retry = "re-run the same command"
	}
	return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("payout %s not accepted: %w\n(to retry without any risk of paying twice, %s)", req.TransactionID, err, retry))
}

// confirmPayout shows the summary and asks, as the profile requires: a
// production profile needs --yes or the amount typed again; elsewhere a
// person at a terminal answers y; without a terminal --yes is required.
func confirmPayout(s *cmdutil.Streams, t Target, req *api.PayoutRequest, yes bool, dups []payout.Payment) error {
	if yes {
		return nil
	}
	if !s.Interactive() {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was sent. Pass --yes to send this payout (profile %q)", t.Profile))
	}
	printPayoutSummary(s, t, req)
	for _, d := range dups {
		fmt.Fprintf(s.Err, "DUPLICATE of %s (sending anyway: --allow-duplicate)\n", termtext.Safe(d.String()))
	}
	if t.Production {
		want := api.FormatAmountPlain(req.AmountInMinor, req.Currency)
		ok, err := cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the amount (%s) to send, anything else cancels:", want), want)
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.ErrCancelled
		}
		return nil
	}
	ok, err := cmdutil.Confirm(s, "Send this payout?")
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.ErrCancelled
	}
	return nil
}

func printPayoutSummary(s *cmdutil.Streams, t Target, req *api.PayoutRequest) {
	if t.Production {
		fmt.Fprintf(s.Err, "*** PRODUCTION profile %q: this moves real money ***\n", t.Profile)
	}
	fmt.Fprintln(s.Err, "Payout:")
	_ = cmdutil.KeyValues(s.Err, [][2]string{
		{"profile", t.Profile},
		{"amount", api.FormatAmount(req.AmountInMinor, req.Currency)},
		{"from account", req.Currency},
		{"beneficiary", req.BeneficiaryName},
		{"IBAN", req.BeneficiaryIBAN},
		{"reference", req.BeneficiaryReference},
		{"context code", req.ContextCode},
		{"transaction id", req.TransactionID},
	})
}
