package sandbox

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/httpguard"
)

// Options configures a Sandbox. The zero value of every field but
// MerchantKey has a working default.
type Options struct {
	// ClientID and ClientSecret are the client credentials the token
	// endpoint accepts. Defaults: "sandbox-client" and a random secret
	// (read it back from Server.Info or Sandbox.Credentials).
	ClientID, ClientSecret string
	// MerchantKey verifies Svc-Signature and X-Svc-Signature (required).
	MerchantKey *ecdsa.PublicKey
	// MerchantKeyID, when set, must be the kid of every request signature.
	MerchantKeyID string
	// WebhookURI receives the webhooks; it may be set later with
	// SetWebhookURI or PUT /sandbox/webhook. Empty means events are logged
	// in Deliveries as undeliverable and dropped.
	WebhookURI string
	// Clock drives token and resource-token expiry, payout steps and
	// webhook retries; nil = clock.Real().
	Clock clock.Clock
	// StepDelay is the wait between payout states (authorised -> submitted
	// -> settled or failed). 0 means the next clock tick: immediately on
	// the real clock, the next Advance on a clock.Fake.
	StepDelay time.Duration
	// WebhookRetry is the wait before each retry of a failed delivery;
	// nil means {1s, 2s, 4s, 8s, 16s} (six attempts in all), an empty
	// non-nil slice means no retries.
	WebhookRetry []time.Duration
	// WebhookTimeout bounds one delivery attempt (real time); default 10s.
	WebhookTimeout time.Duration
	// TokenTTL is the access-token lifetime; default 1h.
	TokenTTL time.Duration
	// History is the number of past transactions to seed; HistorySeed makes
	// them deterministic; HistoryDays (default 90) is how far back they go.
	History     int
	HistorySeed int64
	HistoryDays int
	// InitialFunds is the opening balance per currency in minor units,
	// recorded as a funding at the start of the history window. nil means
	// GBP 1,000,000.00 and EUR 500,000.00; a non-nil map sets exactly the
	// currencies it names (others start at zero).
	InitialFunds map[string]int64
	// DenyList holds beneficiary names the AML check always rejects
	// (compared case-insensitively, spaces collapsed). nil means
	// DefaultDenyList(); an empty non-nil slice disables it.
	DenyList []string
	// Regulated makes validation treat the merchant as regulated (personal
	// details optional, mandate.reference allowed).
	Regulated bool
	// WebhookKey signs webhooks (P-521); nil generates one. WebhookKeyID
	// is its kid; "" derives one from the key's thumbprint.
	WebhookKey   *ecdsa.PrivateKey
	WebhookKeyID string
	// WebhookJKU is the URL of the JWKS named in each webhook signature's
	// jku header, as the service does; Listen sets it to the server's own
	// /.well-known/jwks when empty. Empty: no jku.
	WebhookJKU string
	// DeliveryLogSize caps the delivery log (oldest entries go first);
	// default 10,000.
	DeliveryLogSize int
	// Logger receives one line per request and per delivery attempt;
	// nil discards. Secrets and tokens are never logged.
	Logger *slog.Logger
	// Timeouts bound the connections of a server started by Listen; zero
	// fields take the defaults of DefaultTimeouts.
	Timeouts Timeouts
	// AllowedHosts are host names accepted in the Host header besides
	// loopback names and the listen address (say, the machine's name when
	// listening on 0.0.0.0); any other name is refused with 421, which is
	// what stops DNS rebinding.
	AllowedHosts []string
}

// Timeouts bound a client's connection to a Listen server, so a client
// that sends or reads slowly (on purpose or not) cannot hold it open.
type Timeouts struct {
	// ReadHeader bounds reading the request line and headers.
	ReadHeader time.Duration
	// Read bounds reading the whole request, body included.
	Read time.Duration
	// Write bounds each write of the response: a report streams as long
	// as the client keeps reading, but one that stops is cut off.
	Write time.Duration
	// Idle bounds a kept-alive connection's wait for its next request.
	Idle time.Duration
}

// DefaultTimeouts are the Timeouts Listen uses for zero fields.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 30 * time.Second, Idle: 2 * time.Minute}

func (t Timeouts) withDefaults() Timeouts {
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	return Timeouts{
		ReadHeader: pick(t.ReadHeader, DefaultTimeouts.ReadHeader), Read: pick(t.Read, DefaultTimeouts.Read),
		Write: pick(t.Write, DefaultTimeouts.Write), Idle: pick(t.Idle, DefaultTimeouts.Idle),
	}
}

// DefaultDenyList returns the AML deny list used when Options.DenyList is
// nil.
func DefaultDenyList() []string { return []string{"Sanctioned Person", "Blocked Beneficiary"} }

// Defaults of Options.
const (
	DefaultClientID    = "sandbox-client"
	DefaultTokenTTL    = time.Hour
	DefaultHistoryDays = 90
	// ResourceTokenTTL is the lifetime of a payment's or mandate's
	// resource_token (interface.md: 15 minutes).
	ResourceTokenTTL = 15 * time.Minute
)

// Errors the Go-level control methods wrap; the control endpoints map them
// to 404, 409 and 400.
var (
	ErrNotFound     = errors.New("not found")
	ErrInvalidState = errors.New("not in a state that allows this")
	ErrInvalid      = errors.New("invalid argument")
)

// Sandbox is a stateful, in-process implementation of the whole service.
// It is safe for concurrent use. Serve Handler() on any listener, or use
// Listen for a ready server on loopback.
type Sandbox struct {
	opts    Options
	clock   clock.Clock
	log     *slog.Logger
	handler http.Handler

	webhookKey   *ecdsa.PrivateKey
	webhookKeyID string
	jwks         []byte

	tokens *tokenStore
	idem   *idempotencyStore
	ledger *ledger
	flows  *flowStore
	hooks  *webhooks

	// guard refuses foreign Host and Origin headers; Listen replaces the
	// loopback-only default with one that knows the listen address.
	guard atomic.Pointer[httpguard.Guard]
	// writeIdle bounds each write of a response (ns; 0: no bound), set by
	// Listen; see statusRecorder.
	writeIdle atomic.Int64
	// readBody bounds reading a request's body from the moment its
	// handler starts (ns; 0: only the server's ReadTimeout), set by Listen.
	readBody atomic.Int64

	closeOnce sync.Once
}

// New builds a Sandbox: its two payout accounts, the seeded history and
// the webhook signing key.
func New(opts Options) (*Sandbox, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Sandbox{opts: o, clock: o.Clock, log: o.Logger}
	s.webhookKey, s.webhookKeyID = o.WebhookKey, o.WebhookKeyID
	if s.webhookKey == nil {
		if s.webhookKey, err = api.GenerateSigningKey(); err != nil {
			return nil, fmt.Errorf("sandbox: generating the webhook signing key: %w", err)
		}
	}
	if s.webhookKeyID == "" {
		if s.webhookKeyID, err = thumbprintKID(&s.webhookKey.PublicKey); err != nil {
			return nil, fmt.Errorf("sandbox: webhook key id: %w", err)
		}
	}
	if s.jwks, err = api.PublicJWKS(&s.webhookKey.PublicKey, s.webhookKeyID); err != nil {
		return nil, fmt.Errorf("sandbox: webhook JWKS: %w", err)
	}
	s.tokens = newTokenStore(o.Clock, o.TokenTTL)
	s.idem = newIdempotencyStore(o.Clock)
	s.flows = newFlowStore()
	s.hooks = newWebhooks(o, s.webhookKey, s.webhookKeyID)
	s.ledger, err = newLedger(o, s.hooks)
	if err != nil {
		s.hooks.close()
		return nil, err
	}
	g, err := httpguard.New(httpguard.Options{AllowedHosts: o.AllowedHosts})
	if err != nil {
		s.hooks.close()
		return nil, err
	}
	s.guard.Store(g)
	s.handler = s.routes()
	return s, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.MerchantKey == nil {
		return o, errors.New("sandbox: Options.MerchantKey is required: the merchant's P-521 public key that verifies request signatures")
	}
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.ClientSecret == "" {
		o.ClientSecret = "sbx_secret_" + randomToken(24)
	}
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.StepDelay < 0 {
		return o, fmt.Errorf("sandbox: StepDelay %s is negative", o.StepDelay)
	}
	if o.WebhookRetry == nil {
		o.WebhookRetry = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	}
	if o.WebhookTimeout <= 0 {
		o.WebhookTimeout = 10 * time.Second
	}
	if o.TokenTTL <= 0 {
		o.TokenTTL = DefaultTokenTTL
	}
	if o.History < 0 {
		return o, fmt.Errorf("sandbox: History %d is negative", o.History)
	}
	if o.HistoryDays <= 0 {
		o.HistoryDays = DefaultHistoryDays
	}
	if o.InitialFunds == nil {
		o.InitialFunds = map[string]int64{"GBP": 100_000_000, "EUR": 50_000_000}
	}
	if o.DenyList == nil {
		o.DenyList = DefaultDenyList()
	}
	if o.DeliveryLogSize <= 0 {
		o.DeliveryLogSize = 10_000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.WebhookURI != "" {
		if err := checkWebhookURI(o.WebhookURI); err != nil {
			return o, fmt.Errorf("sandbox: Options.WebhookURI: %w", err)
		}
	}
	return o, nil
}

// Handler serves the whole service: the interface endpoints, the
// extensions, /.well-known/jwks and the /sandbox/ control endpoints.
func (s *Sandbox) Handler() http.Handler { return s.handler }

// Close stops the payout step timers and the webhook deliveries, waiting
// for delivery goroutines to finish. The handler keeps answering reads.
func (s *Sandbox) Close() {
	s.closeOnce.Do(func() {
		s.ledger.close()
		s.hooks.close()
	})
}

// Credentials returns the client id and secret the token endpoint accepts.
func (s *Sandbox) Credentials() (clientID, clientSecret string) {
	return s.opts.ClientID, s.opts.ClientSecret
}

// Fund credits a payout account as an incoming bank transfer from
// payerName: a settled "funding" record in the report, both balances up,
// and an external_payment_received webhook.
func (s *Sandbox) Fund(currency string, amountMinor int64, payerName string) (api.Transaction, error) {
	return s.ledger.fund(fundRequest{Currency: currency, AmountInMinor: amountMinor, PayerName: payerName}, true)
}

// SetWebhookURI registers where webhooks go from now on ("" stops them).
// An invalid URI is kept, and each delivery to it fails in the log.
func (s *Sandbox) SetWebhookURI(uri string) {
	if err := checkWebhookURI(uri); uri != "" && err != nil {
		s.log.Warn("webhook URI will not be reachable", "uri", uri, "error", err)
	}
	s.hooks.setURI(uri)
}

// WebhookURI returns the registered webhook URI.
func (s *Sandbox) WebhookURI() string { return s.hooks.getURI() }

// SetAccountStatus enables or disables the payout account of a currency.
// A disabled account takes no payouts (409 account_disabled).
func (s *Sandbox) SetAccountStatus(currency, status string) error {
	return s.ledger.setStatus(currency, status)
}

// AuthorisePayment completes the user's authorisation of a payment: its
// status becomes authorized, and a payment into a merchant account
// credits that payout account (a funding record).
func (s *Sandbox) AuthorisePayment(id string) error { return s.authorisePayment(id) }

// AuthoriseMandate completes the user's authorisation of a mandate.
func (s *Sandbox) AuthoriseMandate(id string) error {
	_, err := s.flows.authorise(kindMandate, id, s.clock.Now())
	return err
}

// FailMandate fails a mandate awaiting authorisation.
func (s *Sandbox) FailMandate(id, reason string) error {
	_, err := s.flows.fail(kindMandate, id, reason, s.clock.Now())
	return err
}

// InjectEvent queues body for delivery to the webhook URI exactly as
// given, signed by the sandbox like every webhook, with retries and a log
// entry per attempt. headers are sent as given and override the defaults:
// a given X-Svc-Webhook-Timestamp is kept on every attempt, and a given
// X-Svc-Signature replaces the computed one (to test a receiver's
// rejection). It returns once the event is queued, not delivered.
func (s *Sandbox) InjectEvent(ctx context.Context, body []byte, headers http.Header) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.hooks.inject(body, headers)
	return err
}

// Deliveries returns the delivery log, oldest first: one entry per
// attempt.
func (s *Sandbox) Deliveries() []Delivery { return s.hooks.deliveries() }

// Balances returns every payout account, GBP first.
func (s *Sandbox) Balances() []api.Balance { return s.ledger.balances() }

// MerchantAccounts returns the payout accounts with their
// merchant_account_id, for payments and mandates into them.
func (s *Sandbox) MerchantAccounts() []MerchantAccount { return s.ledger.merchantAccounts() }

func (s *Sandbox) validateOptions() api.ValidateOptions {
	return api.ValidateOptions{
		Regulated:       s.opts.Regulated,
		AccountCurrency: s.ledger.accountCurrency,
		Clock:           s.clock,
	}
}

// randomToken returns n random bytes, base64url encoded.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// thumbprintKID names a key by its RFC 7638 thumbprint, so the same key
// always gets the same kid.
func thumbprintKID(pub *ecdsa.PublicKey) (string, error) {
	tp, err := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return "sandbox-" + base64.RawURLEncoding.EncodeToString(tp)[:16], nil
}

func checkWebhookURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", uri, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q must be an absolute http:// or https:// URL", uri)
	}
	return nil
}
