package sandbox

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
)

// Statuses of payments and mandates beyond authorization_required.
const (
	StatusAuthorized = "authorized"
	StatusFailed     = "failed"
)

type flowKind int

const (
	kindPayment flowKind = iota
	kindMandate
)

func (k flowKind) String() string {
	if k == kindMandate {
		return "mandate"
	}
	return "payment"
}

// flow is a payment or a mandate: created awaiting the user's
// authorisation, which the resource token allows for 15 minutes.
type flow struct {
	kind          flowKind
	id, userID    string
	resourceToken string
	status        string
	created       time.Time
	expires       time.Time
	authorizedAt  time.Time
	failedAt      time.Time
	failureReason string

	mandateType string // mandates
	currency    string
	amount      int64 // payments
	beneficiary api.Beneficiary
	payerName   string
	metadata    map[string]string
}

// settle applies resource-token expiry lazily: a flow still awaiting
// authorisation when its token expires has failed, at the expiry time.
func (f *flow) settle(now time.Time) {
	if f.status == api.PaymentStatusAuthorizationRequired && !now.Before(f.expires) {
		f.status, f.failedAt, f.failureReason = StatusFailed, f.expires, FailureExpired
	}
}

// FlowView is a payment or mandate as GET /v3/payments/{id},
// GET /v3/mandates/{id} and the control endpoints return it (extension).
type FlowView struct {
	ID                     string            `json:"id"`
	User                   api.IDRef         `json:"user"`
	Status                 string            `json:"status"`
	Type                   string            `json:"type,omitempty"` // mandate.type
	AmountInMinor          int64             `json:"amount_in_minor,omitempty"`
	Currency               string            `json:"currency"`
	BeneficiaryType        string            `json:"beneficiary_type"`
	MerchantAccountID      string            `json:"merchant_account_id,omitempty"`
	CreatedAt              string            `json:"created_at"`
	ResourceTokenExpiresAt string            `json:"resource_token_expires_at"`
	AuthorizedAt           string            `json:"authorized_at,omitempty"`
	FailedAt               string            `json:"failed_at,omitempty"`
	FailureReason          string            `json:"failure_reason,omitempty"`
	Metadata               map[string]string `json:"metadata,omitempty"`
}

func (f *flow) view() FlowView {
	v := FlowView{ID: f.id, User: api.IDRef{ID: f.userID}, Status: f.status, Type: f.mandateType,
		AmountInMinor: f.amount, Currency: f.currency, BeneficiaryType: f.beneficiary.Type,
		MerchantAccountID: f.beneficiary.MerchantAccountID, CreatedAt: fmtTime(f.created),
		ResourceTokenExpiresAt: fmtTime(f.expires), AuthorizedAt: fmtTime(f.authorizedAt),
		FailedAt: fmtTime(f.failedAt), FailureReason: f.failureReason, Metadata: f.metadata}
	return v
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(api.WebhookTimeLayout)
}

type flowStore struct {
	mu    sync.Mutex
	flows [2]map[string]*flow
}

func newFlowStore() *flowStore {
	return &flowStore{flows: [2]map[string]*flow{{}, {}}}
}

func (fs *flowStore) add(f *flow) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.flows[f.kind][f.id] = f
}

// lookup finds a flow and applies expiry; the caller holds mu.
func (fs *flowStore) lookup(k flowKind, id string, now time.Time) (*flow, error) {
	f, ok := fs.flows[k][id]
	if !ok {
		return nil, fmt.Errorf("no %s with id %q: %w", k, id, ErrNotFound)
	}
	f.settle(now)
	return f, nil
}

// get returns a copy of the flow, with expiry applied.
func (fs *flowStore) get(k flowKind, id string, now time.Time) (flow, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, err := fs.lookup(k, id, now)
	if err != nil {
		return flow{}, err
	}
	return *f, nil
}

// transition moves a flow awaiting authorisation to authorized or failed.
func (fs *flowStore) transition(k flowKind, id string, now time.Time, to, reason string) (flow, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, err := fs.lookup(k, id, now)
	if err != nil {
		return flow{}, err
	}
	if f.status != api.PaymentStatusAuthorizationRequired {
		detail := f.status
		if f.failureReason != "" {
			detail += " (" + f.failureReason + ")"
		}
		return *f, fmt.Errorf("%s %s is %s; only one awaiting authorisation can be authorised, failed or expired: %w", k, id, detail, ErrInvalidState)
	}
	f.status = to
	if to == StatusAuthorized {
		f.authorizedAt = now
	} else {
		f.failedAt, f.failureReason = now, orDefault(reason, FailureAuthorization)
	}
	return *f, nil
}

func (fs *flowStore) authorise(k flowKind, id string, now time.Time) (flow, error) {
	return fs.transition(k, id, now, StatusAuthorized, "")
}

func (fs *flowStore) fail(k flowKind, id, reason string, now time.Time) (flow, error) {
	return fs.transition(k, id, now, StatusFailed, reason)
}

// authorisePayment authorises a payment; one into a merchant account then
// credits that payout account, as a funding record named after the payer.
func (s *Sandbox) authorisePayment(id string) error {
	f, err := s.flows.authorise(kindPayment, id, s.clock.Now())
	if err != nil {
		return err
	}
	if f.beneficiary.Type != api.BeneficiaryMerchantAccount {
		return nil
	}
	ref := f.beneficiary.Reference
	if ref == "" {
		ref = "PAYMENT " + strings.ToUpper(f.id[:8])
	}
	_, err = s.ledger.fund(fundRequest{Currency: f.currency, AmountInMinor: f.amount, PayerName: f.payerName, Reference: ref}, false)
	if err != nil {
		return fmt.Errorf("payment %s authorised, but crediting the %s account failed: %w", id, f.currency, err)
	}
	return nil
}

// invalid turns validation problems into a 400 (nil when there are none).
func invalid(ps api.Problems) error {
	if len(ps) == 0 {
		return nil
	}
	return errInvalidParameters(ps.Fields())
}

// newFlow stores a new payment or mandate: set fills what is particular to
// the kind.
func (s *Sandbox) newFlow(k flowKind, user *api.User, currency string, b api.Beneficiary, metadata map[string]string, set func(*flow)) *flow {
	now := s.clock.Now()
	f := &flow{kind: k, id: uuid.NewString(), resourceToken: "sbx_rt_" + randomToken(32),
		status: api.PaymentStatusAuthorizationRequired, created: now, expires: now.Add(ResourceTokenTTL),
		currency: currency, beneficiary: b, metadata: metadata}
	if user != nil {
		f.userID, f.payerName = user.ID, user.Name
	}
	if f.userID == "" {
		f.userID = uuid.NewString()
	}
	if f.payerName == "" {
		f.payerName = "Payer " + f.userID[:8]
	}
	set(f)
	s.flows.add(f)
	return f
}

// checkMerchantAccount adds what the validator cannot know: whether a
// merchant_account_id exists here, and (for mandates, which the validator
// does not cross-check) whether its currency matches.
func (s *Sandbox) checkMerchantAccount(ps api.Problems, path, currency string, b *api.Beneficiary) api.Problems {
	if b.Type != api.BeneficiaryMerchantAccount || b.MerchantAccountID == "" {
		return ps
	}
	field := path + ".merchant_account_id"
	acct, ok := s.ledger.accountCurrency(b.MerchantAccountID)
	switch {
	case !ok:
		return addProblem(ps, field, fmt.Sprintf("is not a merchant account of this sandbox; use %s (GBP) or %s (EUR)", MerchantAccountGBP, MerchantAccountEUR))
	case currency != "" && acct != currency:
		return addProblem(ps, field, fmt.Sprintf("is a merchant account that holds %s, and a %s payment cannot go into it", acct, currency))
	}
	return ps
}

// handleCreatePayment is POST /v3/payments.
func (s *Sandbox) handleCreatePayment(w http.ResponseWriter, r *http.Request) error {
	var req api.PaymentRequest
	g, body, err := s.signedJSON(r, api.HeaderSignature, &req)
	if err != nil {
		return err
	}
	if err := g.require(api.ScopePayments); err != nil {
		return err
	}
	return s.keyed(w, r, body, func() (int, any, error) {
		b := &req.PaymentMethod.Beneficiary
		if err := invalid(s.checkMerchantAccount(api.ValidatePayment(&req, s.validateOptions()), "payment_method.beneficiary", req.Currency, b)); err != nil {
			return 0, nil, err
		}
		f := s.newFlow(kindPayment, req.User, req.Currency, *b, req.Metadata, func(f *flow) { f.amount = req.AmountInMinor })
		return http.StatusCreated, api.PaymentResponse{ID: f.id, User: api.IDRef{ID: f.userID},
			ResourceToken: f.resourceToken, Status: f.status}, nil
	})
}

// handleCreateMandate is POST /v3/mandates. The token must carry exactly
// one recurring_payments scope, and it must match mandate.type.
func (s *Sandbox) handleCreateMandate(w http.ResponseWriter, r *http.Request) error {
	var req api.MandateRequest
	g, body, err := s.signedJSON(r, api.HeaderSignature, &req)
	if err != nil {
		return err
	}
	if err := requireMandateScope(g, req.Mandate.Type); err != nil {
		return err
	}
	return s.keyed(w, r, body, func() (int, any, error) {
		b := &req.Mandate.Beneficiary
		if err := invalid(s.checkMerchantAccount(api.ValidateMandate(&req, s.validateOptions()), "mandate.beneficiary", req.Currency, b)); err != nil {
			return 0, nil, err
		}
		f := s.newFlow(kindMandate, req.User, req.Currency, *b, req.Metadata, func(f *flow) { f.mandateType = req.Mandate.Type })
		return http.StatusCreated, api.MandateResponse{ID: f.id, User: api.IDRef{ID: f.userID}, ResourceToken: f.resourceToken}, nil
	})
}

// requireMandateScope: exactly one recurring_payments scope, matching the
// mandate type. An unknown type is left to validation (400).
func requireMandateScope(g *grant, mandateType string) error {
	var recurring []string
	for _, sc := range g.scopes {
		if sc == api.ScopeSweeping || sc == api.ScopeCommercial {
			recurring = append(recurring, sc)
		}
	}
	valid := mandateType == api.MandateSweeping || mandateType == api.MandateCommercial
	switch {
	case len(recurring) == 0:
		return errForbidden(fmt.Sprintf("mandate creation needs an access token with scope %s or %s; the token has %q",
			api.ScopeSweeping, api.ScopeCommercial, strings.Join(g.scopes, " ")))
	case len(recurring) > 1:
		return errForbidden(fmt.Sprintf("mandate creation needs a token with exactly one of %s and %s; request a token with only the one matching mandate.type",
			api.ScopeSweeping, api.ScopeCommercial))
	case valid && recurring[0] != api.ScopeForMandate(mandateType):
		return errForbidden(fmt.Sprintf("mandate.type %q needs a token with scope %s, but the token has %s; the type must match the scope",
			mandateType, api.ScopeForMandate(mandateType), recurring[0]))
	}
	return nil
}

// handleGetPayment is GET /v3/payments/{id} (extension; scope payments).
func (s *Sandbox) handleGetPayment(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.authorize(r, api.ScopePayments); err != nil {
		return err
	}
	f, err := s.flows.get(kindPayment, r.PathValue("id"), s.clock.Now())
	if err != nil {
		return errNotFound(err.Error())
	}
	return writeJSON(w, http.StatusOK, f.view())
}

// handleGetMandate is GET /v3/mandates/{id} (extension; the scope of the
// mandate's type).
func (s *Sandbox) handleGetMandate(w http.ResponseWriter, r *http.Request) error {
	g, err := s.bearer(r)
	if err != nil {
		return err
	}
	f, err := s.flows.get(kindMandate, r.PathValue("id"), s.clock.Now())
	if err != nil {
		if !g.has(api.ScopeSweeping) && !g.has(api.ScopeCommercial) {
			return errForbidden("reading a mandate needs a token with a recurring_payments scope")
		}
		return errNotFound(err.Error())
	}
	if err := g.require(api.ScopeForMandate(f.mandateType)); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, f.view())
}
