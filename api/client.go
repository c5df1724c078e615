package api

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/internal/platform/clock"
)

// Config configures a Client. The three URLs are the {auth_url},
// {base_url} and {payouts_url} of the interface; each may carry a path
// prefix (e.g. http://127.0.0.1:8080/sandbox), which becomes part of every
// request path and of the signed path.
type Config struct {
	AuthURL, BaseURL, PayoutsURL string
	ClientID                     string
	ClientSecret                 string
	// SigningKeyID is the kid of the signatures; SigningKey is the P-521
	// key they are made with. Without a key the client still reads
	// balances and transactions, and the signing calls fail with "no
	// signing key configured".
	SigningKeyID string
	SigningKey   *ecdsa.PrivateKey
	HTTPClient   *http.Client // nil = DefaultHTTPClient()
	Clock        clock.Clock  // nil = clock.Real()
	Retry        RetryPolicy  // zero = defaults (4 attempts, 200ms base, 5s cap)
	UserAgent    string       // "" = "paydash"
}

// String describes the config without its secret or private key, so a
// Config that reaches a log or the screen leaks nothing.
func (c Config) String() string {
	return fmt.Sprintf("api.Config{AuthURL:%q BaseURL:%q PayoutsURL:%q ClientID:%q ClientSecret:%s SigningKeyID:%q SigningKey:%s}",
		c.AuthURL, c.BaseURL, c.PayoutsURL, c.ClientID, redacted(c.ClientSecret != ""), c.SigningKeyID, redacted(c.SigningKey != nil))
}

// GoString keeps %#v as safe as %v.
func (c Config) GoString() string { return c.String() }

func redacted(set bool) string {
	if set {
		return "[redacted]"
	}
	return "[unset]"
}

// Client calls the payments, mandates and payouts interface. It is safe
// for concurrent use; create one per profile and share it.
type Client struct {
	authURL, baseURL, payoutsURL *url.URL
	tokenURL                     *url.URL
	clientID, secret             string
	keyID                        string
	key                          *ecdsa.PrivateKey
	hc                           *http.Client
	clock                        clock.Clock
	retry                        RetryPolicy
	userAgent                    string
	tokens                       *tokenCache
	// randN draws the backoff jitter; tests replace it to pin delays.
	randN func(int64) int64
}

// String describes the client without its secret: fmt would otherwise
// print the unexported fields, secret included, for %+v of a *Client.
func (c *Client) String() string {
	return fmt.Sprintf("api.Client{auth_url=%s base_url=%s payouts_url=%s client_id=%q}",
		c.authURL.Redacted(), c.baseURL.Redacted(), c.payoutsURL.Redacted(), c.clientID)
}

// GoString keeps %#v as safe as %v.
func (c *Client) GoString() string { return c.String() }

// DefaultHTTPClient has timeouts on connecting and on waiting for response
// headers but none on the whole exchange, so a long transaction report can
// stream for as long as its context allows.
func DefaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = 30 * time.Second
	t.ExpectContinueTimeout = time.Second
	// The report is read 128 KB at a time (reportReadSize), but a chunked
	// body comes through the transport's buffer, 4 KB by default: 300,000
	// rows from the sandbox took 4,487 read calls of 26 KB on average;
	// with a buffer the size of the reads, 964 of 124 KB.
	t.ReadBufferSize = reportReadSize
	return &http.Client{Transport: t}
}

// NewClient checks cfg and returns a Client. Errors name the setting and
// what is wrong with it, and never contain the secret.
func NewClient(cfg Config) (*Client, error) {
	var errs []error
	parse := func(name, raw string) *url.URL {
		u, err := parseServiceURL(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return u
	}
	c := &Client{
		authURL:    parse("auth_url", cfg.AuthURL),
		baseURL:    parse("base_url", cfg.BaseURL),
		payoutsURL: parse("payouts_url", cfg.PayoutsURL),
		clientID:   strings.TrimSpace(cfg.ClientID),
		secret:     cfg.ClientSecret,
		keyID:      cfg.SigningKeyID,
		key:        cfg.SigningKey,
		hc:         cfg.HTTPClient,
		clock:      cfg.Clock,
		retry:      cfg.Retry.withDefaults(),
		userAgent:  cfg.UserAgent,
		tokens:     newTokenCache(),
		randN:      rand.Int64N,
	}
	if c.clientID == "" {
		errs = append(errs, errors.New("client_id: is empty; set the client id issued for this environment"))
	}
	if c.key != nil && c.key.Curve != elliptic.P521() {
		errs = append(errs, fmt.Errorf("signing key: is on curve %s; ES512 signatures need a P-521 key", c.key.Curve.Params().Name))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("api client config: %w", errors.Join(errs...))
	}
	if c.hc == nil {
		c.hc = DefaultHTTPClient()
	}
	if c.clock == nil {
		c.clock = clock.Real()
	}
	if c.userAgent == "" {
		c.userAgent = "paydash"
	}
	c.tokenURL = endpoint(c.authURL, "connect", "token")
	return c, nil
}

func parseServiceURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("is empty; set an absolute http or https URL")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%q must start with http:// or https://", u.Redacted())
	case u.Host == "":
		return nil, fmt.Errorf("%q has no host", u.Redacted())
	case u.User != nil:
		return nil, fmt.Errorf("%q must not hold credentials; set client_id and client_secret instead", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("%q must not have a query or fragment", u.Redacted())
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// endpoint appends fixed path segments to a service URL, keeping its path
// prefix. (url.JoinPath would drop the leading slash of a prefix-less URL,
// and the path is signed, so it must be exactly what the server sees.)
func endpoint(base *url.URL, elems ...string) *url.URL {
	u := *base
	u.Path = base.Path + "/" + strings.Join(elems, "/")
	u.RawPath = ""
	return &u
}

// CreateMandate sends POST {base_url}/v3/mandates with a token of the
// mandate type's scope (recurring_payments:sweeping or :commercial).
// An empty idempotencyKey gets a fresh UUIDv4; the same key is sent on
// every retry, so the service creates the mandate at most once.
func (c *Client) CreateMandate(ctx context.Context, req *MandateRequest, idempotencyKey string) (*MandateResponse, error) {
	if req == nil {
		return nil, errors.New("create mandate: nil request")
	}
	if req.Mandate.Type == "" {
		return nil, errors.New("create mandate: mandate.type is empty; set sweeping or commercial (it picks the token scope)")
	}
	var out MandateResponse
	if err := c.postBase(ctx, "mandates", ScopeForMandate(req.Mandate.Type), ContentTypeJSON, "", req, idempotencyKey, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreatePayment sends POST {base_url}/v3/payments with a "payments" token.
// An empty idempotencyKey gets a fresh UUIDv4, reused on every retry.
func (c *Client) CreatePayment(ctx context.Context, req *PaymentRequest, idempotencyKey string) (*PaymentResponse, error) {
	if req == nil {
		return nil, errors.New("create payment: nil request")
	}
	var out PaymentResponse
	if err := c.postBase(ctx, "payments", ScopePayments, ContentTypeJSONUTF8, ContentTypeJSONUTF8, req, idempotencyKey, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// postBase sends a signed, keyed POST to {base_url}/v3/<resource> and
// decodes the response into out.
func (c *Client) postBase(ctx context.Context, resource, scope, contentType, accept string, req any, key string, out any) error {
	u := endpoint(c.baseURL, "v3", resource)
	if key == "" {
		key = uuid.NewString()
	}
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("POST %s: encoding the request: %w", u.Path, err)
	}
	h := http.Header{}
	h.Set("Content-Type", contentType)
	if accept != "" {
		h.Set("Accept", accept)
	}
	h.Set(HeaderIdempotencyKey, key)
	if err := c.sign(h, HeaderSignature, u.Path, []SignedHeader{{HeaderIdempotencyKey, key}}, body); err != nil {
		return notSent(err)
	}
	resp, err := c.do(ctx, &call{method: http.MethodPost, u: u, scope: scope, header: h, body: body, retry: retryIdempotent})
	if err != nil {
		return err
	}
	return decodeJSON(resp, out)
}

// sign puts the request signature into header name. It is made once per
// logical request and re-sent unchanged on retries.
func (c *Client) sign(h http.Header, name, path string, signed []SignedHeader, body []byte) error {
	if c.key == nil {
		return fmt.Errorf("POST %s: no signing key configured; set the signing key file of this profile", path)
	}
	sig, err := Sign(c.key, c.keyID, http.MethodPost, path, signed, body)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	h.Set(name, sig)
	return nil
}

// Balances returns every payout account (GET {payouts_url}/v1/balances).
func (c *Client) Balances(ctx context.Context) ([]Balance, error) {
	resp, err := c.get(ctx, endpoint(c.payoutsURL, "v1", "balances"))
	if err != nil {
		return nil, err
	}
	var out BalancesResponse
	if err := decodeJSON(resp, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// CreatePayout sends POST {payouts_url}/v1/payouts, signed into
// X-Svc-Signature (path and body; no headers are signed). nil means the
// service accepted the payout (202; any other 2xx is taken as accepted
// too); the outcome arrives later by webhook. The response body is
// ignored. The request is retried (network errors, 5xx, 429) only when it
// carries a transaction_id, which the service deduplicates on. Like every
// call, it is re-sent once with a fresh token after a 401, since the
// service does not act on a request it could not authenticate.
func (c *Client) CreatePayout(ctx context.Context, req *PayoutRequest) error {
	if req == nil {
		return notSent(errors.New("create payout: nil request"))
	}
	u := endpoint(c.payoutsURL, "v1", "payouts")
	body, err := json.Marshal(req)
	if err != nil {
		return notSent(fmt.Errorf("POST %s: encoding the request: %w", u.Path, err))
	}
	h := http.Header{}
	h.Set("Content-Type", ContentTypeJSON)
	if err := c.sign(h, HeaderPayoutSignature, u.Path, nil, body); err != nil {
		return notSent(err)
	}
	rc := retryNever
	if req.TransactionID != "" {
		rc = retryIdempotent
	}
	resp, err := c.do(ctx, &call{method: http.MethodPost, u: u, scope: ScopePayouts, header: h, body: body, retry: rc})
	if err != nil {
		return err
	}
	discard(resp)
	return nil
}

// Transactions returns the whole transaction report matching q. For large
// reports prefer StreamTransactions, which holds one record at a time.
func (c *Client) Transactions(ctx context.Context, q TransactionQuery) ([]Transaction, error) {
	var out []Transaction
	err := c.StreamTransactions(ctx, q, func(t Transaction) error {
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// StreamTransactions fetches GET {payouts_url}/v1/transactions and calls fn
// for each record of "results" as it is decoded, so memory stays flat
// however long the report. An error from fn stops the stream and is
// returned unchanged. Retries happen only before the first record is
// read; a connection lost mid-stream returns an error, since fn has
// already seen part of the report.
func (c *Client) StreamTransactions(ctx context.Context, q TransactionQuery, fn func(Transaction) error) error {
	return c.streamReport(ctx, q, func(body io.Reader) error { return decodeResults(body, fn) })
}

// StreamRecords is StreamTransactions for a consumer that only passes
// records through (an export): each Record is valid during fn only, and
// its strings are not made (see Record.Transient), which saves most of
// the decoding of a million-record report. Incremental readers pass
// q.From (the newest time they hold, minus an overlap) to get only
// what is new.
func (c *Client) StreamRecords(ctx context.Context, q TransactionQuery, fn func(*Record) error) error {
	return c.streamReport(ctx, q, func(body io.Reader) error { return decodeRecords(body, fn) })
}

func (c *Client) streamReport(ctx context.Context, q TransactionQuery, decode func(io.Reader) error) error {
	u := endpoint(c.payoutsURL, "v1", "transactions")
	u.RawQuery = transactionsQuery(q).Encode()
	resp, err := c.get(ctx, u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := decode(resp.Body); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("GET %s: %w", u.Path, ctx.Err())
		}
		if errors.Is(err, errStop) {
			return errors.Unwrap(err)
		}
		return fmt.Errorf("GET %s: reading the report: %w", u.Path, err)
	}
	return nil
}

// transactionsQuery renders q; zero values are left out. Times go out in
// the report's own layout (RFC 3339, UTC, seven fractional digits).
func transactionsQuery(q TransactionQuery) url.Values {
	v := url.Values{}
	if !q.From.IsZero() {
		v.Set("from", q.From.UTC().Format(ReportTimeLayout))
	}
	if !q.To.IsZero() {
		v.Set("to", q.To.UTC().Format(ReportTimeLayout))
	}
	if q.Type != "" {
		v.Set("type", q.Type)
	}
	if q.Currency != "" {
		v.Set("currency", q.Currency)
	}
	return v
}

func (c *Client) get(ctx context.Context, u *url.URL) (*http.Response, error) {
	h := http.Header{}
	h.Set("Accept", ContentTypeJSON)
	return c.do(ctx, &call{method: http.MethodGet, u: u, scope: ScopePayouts, header: h, retry: retryIdempotent})
}

// maxResponse caps the small JSON responses (everything but the report).
const maxResponse = 8 << 20

func decodeJSON(resp *http.Response, out any) error {
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponse)).Decode(out); err != nil {
		return fmt.Errorf("%s %s: reading the response: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}
