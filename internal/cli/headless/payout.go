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
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/termtext"
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
	// Sent is the class of the service's answer when it did not accept
	// the payout: refused (nothing was created) or unknown (it may
	// have been; re-send only under the same id).
	Sent string `json:"sent,omitempty"`
	// Error and ExitCode are set when the payout was not accepted, in
	// the shape every command's --json failure has (cmdutil.ErrorJSON).
	Error    *cmdutil.ErrorDetail `json:"error,omitempty"`
	ExitCode int                  `json:"exit_code,omitempty"`
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

// CreatePayout runs one payout through the payout pipeline (payout.Run):
// validate, check the id, duplicates and funds, confirm, record, send,
// classify, record and, with --wait, follow. This command only asks and
// prints. Exit status 0 means the service accepted it (202) and, with
// --wait, that it settled.
func CreatePayout(ctx context.Context, s *cmdutil.Streams, c PayoutCreator, t Target, o *PayoutOptions) error {
	req, usage := o.Request()
	window := o.DuplicateWindow
	if window == 0 {
		window = payout.DefaultWindow
	}
	pl := &payout.Pipeline{Sender: c, Log: t.Audit, Source: payout.SourceCreate, Window: window, RelayURL: t.RelayURL, RelayToken: t.RelayToken}
	svc, guarded := c.(PayoutService)
	if guarded {
		pl.Report, pl.Balances = svc, svc
	}
	var probs api.Problems
	var inv *payout.InvalidError
	if err := pl.Validate(req); errors.As(err, &inv) {
		probs = inv.Problems
	}
	if len(usage) > 0 {
		probs = dropFields(probs, "amount_in_minor")
	}
	if len(usage) > 0 || len(probs) > 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, &ProblemsError{What: "payout", Usage: usage, Problems: probs})
	}
	if !o.Yes && !s.Interactive() {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was sent. Pass --yes to send this payout (profile %q)", t.Profile))
	}
	opt := payout.Options{AllowDuplicate: o.AllowDuplicate, IDGiven: o.TransactionID != ""}
	if guarded {
		opt.Follow = o.Wait
	}
	res := PayoutResult{TransactionID: req.TransactionID}
	r, err := pl.Run(ctx, req, opt, payout.Hooks{
		Confirm: func(_ context.Context, chk *payout.Checked) error {
			return confirmPayout(s, t, req, o.Yes, chk.Matches)
		},
		Notice: func(msg string) {
			if strings.HasPrefix(msg, "warning: ") {
				fmt.Fprintln(s.Err, termtext.Safe(msg))
				return
			}
			fmt.Fprintf(s.Err, "note: %s\n", termtext.Safe(msg))
		},
	})
	if chk := r.Checked; chk != nil {
		res.DuplicateOf, res.AlreadySent = chk.Matches, chk.AlreadySent
	}
	if err != nil {
		return stopped(s, o, req, &res, err)
	}
	res.Accepted, res.HTTPStatus = true, r.Answer.HTTPStatus
	if res.AlreadySent != nil {
		fmt.Fprintf(s.Err, "transaction id %s was already sent on %s for this payout; the service created nothing new\n",
			req.TransactionID, res.AlreadySent.At.UTC().Format("2006-01-02 15:04 MST"))
	}
	if r.Final == nil {
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
	st := *r.Final
	res.State, res.Reason, res.StateFrom, res.Returned = st.State, st.Reason, st.From, st.Returned
	if o.JSON {
		if werr := cmdutil.WriteJSON(s.Out, res); werr != nil {
			return werr
		}
	} else {
		fmt.Fprintln(s.Out, req.TransactionID)
	}
	switch {
	case api.StatePaid(st.State):
		fmt.Fprintf(s.Err, "settled: %s to %s (state from the %s)\n", api.FormatAmount(req.AmountInMinor, req.Currency), termtext.Safe(req.BeneficiaryName), st.From)
		return nil
	case api.IsFinalState(st.State):
		reason := st.Reason
		if reason == "" {
			reason = "no reason given"
			if st.From != payout.FromRelay {
				reason += " (the service report carries none; the relay, when reachable, does: paydash events tail --since 0 --payout " + req.TransactionID + ")"
			}
		}
		if res.Returned {
			return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("payout %s returned: the money went out to the payee's bank and came back, so the payee was NOT paid (%s; state from the %s)",
				req.TransactionID, reason, st.From))
		}
		return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("payout %s %s: %s (state from the %s); nothing was paid", req.TransactionID, st.State, reason, st.From))
	}
	if ctx.Err() != nil {
		// Interrupted (ctrl+c), not timed out: the payout went and was
		// accepted; only the waiting stopped.
		return cmdutil.Exit(exitNoFinalState, fmt.Errorf("payout %s was sent and accepted; stopped waiting for its final state (interrupted). Follow it with: paydash events tail --since 0 --payout %s",
			req.TransactionID, req.TransactionID))
	}
	return cmdutil.Exit(exitNoFinalState, fmt.Errorf("payout %s: no final state within %s (%s); follow it with: paydash events tail --since 0 --payout %s "+
		"(the relay has every state, a rejection too), or paydash transactions --search %s (the report lists it once authorised, never if rejected)",
		req.TransactionID, cmdutil.HumanDuration(o.Wait), st.Note, req.TransactionID, req.TransactionID))
}

// stopped turns what stopped the pipeline into this command's message
// and exit code: a reused id is a usage error (2); a duplicate, funds,
// an account and the service's answer are "not accepted" (3).
func stopped(s *cmdutil.Streams, o *PayoutOptions, req *api.PayoutRequest, res *PayoutResult, err error) error {
	var (
		used *payout.IDUsedError
		dup  *payout.DuplicateError
		se   *payout.SendError
	)
	switch {
	case errors.As(err, &used):
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("%w: leave out --transaction-id to send it under a new id", err))
	case errors.As(err, &dup):
		return refuseDuplicate(s, o, req, dup)
	case errors.As(err, &se):
		return notAccepted(s, o, req, res, se)
	case payout.ErrorClass(err) != "":
		return cmdutil.Exit(cmdutil.ExitNotAccepted, err)
	}
	return err
}

func refuseDuplicate(s *cmdutil.Streams, o *PayoutOptions, req *api.PayoutRequest, dup *payout.DuplicateError) error {
	matches := dup.Matches
	var b strings.Builder
	fmt.Fprintf(&b, "possible duplicate: %s to %s with reference %q matches %d payout(s) made within %s:",
		api.FormatAmount(req.AmountInMinor, req.Currency), req.BeneficiaryIBAN, req.BeneficiaryReference, len(matches), cmdutil.HumanDuration(o.DuplicateWindow))
	for _, m := range matches {
		b.WriteString("\n  " + m.String())
	}
	b.WriteString("\nNothing was sent. If this is a new payment, pass --allow-duplicate to send it")
	err := cmdutil.Exit(cmdutil.ExitNotAccepted, cmdutil.WithMessage(b.String(), dup))
	if o.JSON {
		res := PayoutResult{TransactionID: req.TransactionID, DuplicateOf: matches}
		res.setError(err)
		_ = cmdutil.WriteJSON(s.Out, res)
	}
	return err
}

// setError fills the result's error in the one shape of --json failures.
func (r *PayoutResult) setError(err error) {
	j := cmdutil.NewErrorJSON(err)
	r.Error, r.ExitCode = &j.Error, j.ExitCode
}

// notAccepted reports a send the service did not accept, with what its
// class of answer means (payout.Answer.Advice) and how to act on it here.
func notAccepted(s *cmdutil.Streams, o *PayoutOptions, req *api.PayoutRequest, res *PayoutResult, se *payout.SendError) error {
	a := se.Answer
	res.HTTPStatus = a.HTTPStatus
	res.Sent = a.Outcome
	var how string
	switch {
	case a.Refused() && a.Reached:
		how = "correct what it names and run the command again"
		if o.TransactionID != "" {
			how += " (a corrected payout may take a new id: leave out --transaction-id)"
		}
	case a.Refused():
		how = "run the same command again"
	default:
		how = fmt.Sprintf("to retry without any risk of paying twice, re-run the same command with --transaction-id %s", req.TransactionID)
		if o.TransactionID != "" {
			how = "to retry without any risk of paying twice, re-run the same command"
		}
	}
	// The message is the answer's; the chain keeps the pipeline's error,
	// so its class (refused or unknown) is the one --json reports.
	err := cmdutil.Exit(cmdutil.ExitNotAccepted, cmdutil.WithMessage(
		fmt.Sprintf("payout %s not accepted: %v\n(%s; %s)", req.TransactionID, a.Err, a.Advice(), how), se))
	if o.JSON {
		res.setError(err)
		if werr := cmdutil.WriteJSON(s.Out, res); werr != nil {
			return werr
		}
	}
	return err
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
	return askToGo(s, t.Production, api.FormatAmountPlain(req.AmountInMinor, req.Currency), "send", "Send this payout?")
}

// askToGo is the last question before a request is sent, at a terminal:
// on a production profile the amount typed again (y is not enough),
// elsewhere y/N to question; anything else is cmdutil.ErrCancelled.
func askToGo(s *cmdutil.Streams, production bool, amount, action, question string) error {
	var ok bool
	var err error
	if production {
		ok, err = cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the amount (%s) to %s, anything else cancels:", amount, action), amount)
	} else {
		ok, err = cmdutil.Confirm(s, question)
	}
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
