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
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// ResourceTokenLifetime is how long a resource token authorises the
// user-facing flow (interface Limits).
const ResourceTokenLifetime = 15 * time.Minute

// PaymentOptions are the flags of `paydash payment create`.
type PaymentOptions struct {
	Amount    string
	Currency  string
	Reference string

	requestFlags
}

// Bind registers the flags.
func (o *PaymentOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Amount, "amount", "", "amount in major units, e.g. 12.50 (required)")
	fs.StringVar(&o.Currency, "currency", "", "GBP or EUR (required)")
	fs.StringVar(&o.Reference, "reference", "", "reference shown on the payer's statement")
	o.bind(fs, true) // the embedded requestFlags: profile, output and idempotency flags
}

// Request builds the payment creation request from the flags, with the
// problems the flags themselves have (API rules are checked separately).
func (o *PaymentOptions) Request() (*api.PaymentRequest, []string) {
	var usage []string
	cur := strings.ToUpper(strings.TrimSpace(o.Currency))
	req := &api.PaymentRequest{Currency: cur, PaymentMethod: api.PaymentMethod{Type: api.PaymentMethodBankTransfer}}
	if o.Amount == "" {
		usage = append(usage, "--amount is required, e.g. --amount 12.50")
		o.unparsed = append(o.unparsed, "amount_in_minor")
	} else if minor, err := api.ParseAmount(o.Amount, cur, false); err != nil {
		usage = append(usage, fmt.Sprintf("--amount: %v", err))
		o.unparsed = append(o.unparsed, "amount_in_minor")
	} else {
		req.AmountInMinor = minor
	}
	ben, p := o.ben.build()
	usage = append(usage, p...)
	ben.Reference = strings.TrimSpace(o.Reference)
	req.PaymentMethod.Beneficiary = ben
	ps, p := o.prov.build()
	usage = append(usage, p...)
	req.PaymentMethod.ProviderSelection = &ps
	req.User = o.user.build()
	md, rp, p := o.ext.build()
	usage = append(usage, p...)
	req.Metadata, req.RelatedProducts = md, rp
	return req, usage
}

// Created is what `payment create` and `mandate create` print.
type Created struct {
	ID             string    `json:"id"`
	UserID         string    `json:"user_id"`
	Status         string    `json:"status,omitempty"`
	ResourceToken  string    `json:"resource_token"`
	TokenExpiresAt time.Time `json:"resource_token_expires_at"`
	IdempotencyKey string    `json:"idempotency_key"`
}

func printCreated(s *cmdutil.Streams, what string, c Created, asJSON bool) error {
	if asJSON {
		return cmdutil.WriteJSON(s.Out, c)
	}
	fmt.Fprintf(s.Out, "%s created\n", what)
	pairs := [][2]string{{"id", c.ID}, {"user id", c.UserID}}
	if c.Status != "" {
		pairs = append(pairs, [2]string{"status", c.Status})
	}
	pairs = append(pairs,
		[2]string{"resource token", c.ResourceToken},
		[2]string{"token expires", c.TokenExpiresAt.UTC().Format("15:04:05 MST") + " (15 minutes: the user must authorise before then)"},
		[2]string{"idempotency key", c.IdempotencyKey})
	return cmdutil.KeyValues(s.Out, pairs)
}

// Held is what `payment create` and `mandate create` print on a team
// profile when the hub's policy holds the request for approval.
type Held struct {
	Status          string   `json:"status"`
	ApprovalID      string   `json:"approval_id"`
	Reason          string   `json:"reason"`
	Approvers       []string `json:"approvers,omitempty"`
	ApprovalsNeeded int      `json:"approvals_needed,omitempty"`
	IdempotencyKey  string   `json:"idempotency_key"`
}

// awaitingApproval says the hub holds the request for approval and exits
// 5, as payout create does: nothing was created yet; the hub creates it
// under this idempotency key once other people approve.
func awaitingApproval(s *cmdutil.Streams, what, key string, r hubapi.Result, asJSON bool) error {
	h := Held{Status: hubapi.StatusAwaitingApproval, ApprovalID: r.ApprovalID, Reason: r.Reason, Approvers: r.Approvers,
		ApprovalsNeeded: r.ApprovalsNeeded, IdempotencyKey: key}
	if asJSON {
		if err := cmdutil.WriteJSON(s.Out, h); err != nil {
			return err
		}
		return cmdutil.SilentExit(cmdutil.ExitAwaitingApproval)
	}
	who := "nobody yet: ask an administrator to add an approver"
	if len(h.Approvers) > 0 {
		who = strings.Join(h.Approvers, ", ")
	}
	fmt.Fprintf(s.Out, "Awaiting approval: %s (%s). Nothing is created until %d of %s approve.\n", h.ApprovalID, termtext.Safe(h.Reason), max(h.ApprovalsNeeded, 1), who)
	fmt.Fprintf(s.Out, "The hub then creates the %s under idempotency key %s: follow it with paydash approvals show %s\n", what, key, h.ApprovalID)
	return cmdutil.SilentExit(cmdutil.ExitAwaitingApproval)
}

// idempotencyKey returns the given key, or a new UUID.
func idempotencyKey(k string) string {
	if k = strings.TrimSpace(k); k != "" {
		return k
	}
	return uuid.NewString()
}

// PaymentCreator is the part of the api client `payment create` uses.
type PaymentCreator interface {
	CreatePayment(ctx context.Context, req *api.PaymentRequest, idempotencyKey string) (*api.PaymentResponse, error)
}

// CreatePayment validates and creates a single payment.
func CreatePayment(ctx context.Context, s *cmdutil.Streams, c PaymentCreator, v api.ValidateOptions, o *PaymentOptions) error {
	req, usage := o.Request()
	probs := dropFields(api.ValidatePayment(req, v), o.unparsed...)
	summary := func() [][2]string {
		return append([][2]string{{"amount", api.FormatAmount(req.AmountInMinor, req.Currency)}},
			beneficiaryLines(req.PaymentMethod.Beneficiary)...)
	}
	return create(s, "payment", usage, probs, &o.requestFlags, summary, api.FormatAmountPlain(req.AmountInMinor, req.Currency), func(key string) (Created, error) {
		resp, err := c.CreatePayment(ctx, req, key)
		if err != nil {
			return Created{}, err
		}
		return Created{ID: resp.ID, UserID: resp.User.ID, Status: resp.Status, ResourceToken: resp.ResourceToken}, nil
	})
}

// create is the shared tail of payment and mandate creation: refuse an
// invalid request with every problem, confirm it (confirmCreate), send
// it under one idempotency key (printed on failure so a retry is safe),
// print the result.
//
// typed is the amount a production profile's operator types to confirm
// (a payment's amount, a mandate's largest single payment).
func create(s *cmdutil.Streams, what string, usage []string, probs api.Problems, r *requestFlags, summary func() [][2]string, typed string, send func(key string) (Created, error)) error {
	key, asJSON := r.IdempotencyKey, r.JSON
	if len(usage) > 0 || len(probs) > 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, &ProblemsError{What: what, Usage: usage, Problems: probs})
	}
	if err := confirmCreate(s, what, r, summary, typed); err != nil {
		return err
	}
	key = idempotencyKey(key)
	c, err := send(key)
	var held *hubapi.AwaitingApprovalError
	if errors.As(err, &held) {
		return awaitingApproval(s, what, key, held.Result, asJSON)
	}
	if api.IsIdempotencyKeyReused(err) {
		// Retrying with this key would be refused again: it belongs to an
		// earlier, different request, which stays as it was.
		return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("create %s: idempotency key %s was already used for a different request, so nothing was created; "+
			"for this new request run the command again without --idempotency-key (a new key is made) or with a new key: %w", what, key, err))
	}
	if a := payout.Classify(err); a.Refused() && a.Reached {
		// A definite answer: nothing was created, and the same request
		// would be refused again, under this key or another.
		return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("create %s: the service refused it, so nothing was created; "+
			"correct what it names and run the command again (without --idempotency-key: a new key is made): %w", what, err))
	}
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("create %s (idempotency key %s; re-run with --idempotency-key %s to retry safely): %w", what, key, key, err))
	}
	c.IdempotencyKey = key
	c.TokenExpiresAt = time.Now().Add(ResourceTokenLifetime).UTC().Truncate(time.Second)
	return printCreated(s, what, c, asJSON)
}

// confirmCreate asks before a payment or mandate is created, as payout
// create does: --yes skips the question; without a terminal --yes is
// required and nothing is created; at a terminal the request is shown
// and only y creates it, or on a production profile only typed, typed
// again (y is not enough there, as for a payout).
func confirmCreate(s *cmdutil.Streams, what string, r *requestFlags, summary func() [][2]string, typed string) error {
	if r.Yes {
		return nil
	}
	if !s.Interactive() {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was sent. Pass --yes to create this %s (profile %q)", what, r.profile))
	}
	if r.production {
		fmt.Fprintf(s.Err, "*** PRODUCTION profile %q: this is real ***\n", r.profile)
	}
	fmt.Fprintf(s.Err, "%s%s:\n", strings.ToUpper(what[:1]), what[1:])
	lines := append([][2]string{{"profile", r.profile}}, summary()...)
	_ = cmdutil.KeyValues(s.Err, lines)
	return askToGo(s, r.production, typed, "create this "+what, "Create this "+what+"?")
}

// beneficiaryLines are a beneficiary's lines in a confirmation.
func beneficiaryLines(b api.Beneficiary) [][2]string {
	out := [][2]string{}
	if b.MerchantAccountID != "" {
		out = append(out, [2]string{"merchant account", b.MerchantAccountID})
	}
	if b.AccountHolderName != "" {
		out = append(out, [2]string{"account holder", b.AccountHolderName})
	}
	if id := b.AccountIdentifier; id != nil {
		switch {
		case id.IBAN != "":
			out = append(out, [2]string{"IBAN", id.IBAN})
		case id.SortCode != "":
			out = append(out, [2]string{"sort code", id.SortCode}, [2]string{"account number", id.AccountNumber})
		}
	}
	if b.Reference != "" {
		out = append(out, [2]string{"reference", b.Reference})
	}
	return out
}
