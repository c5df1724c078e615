package hubclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// Client calls one hub.
type Client struct {
	// BaseURL is the hub's http(s)://host:port.
	BaseURL string
	// Token is the person's own token (their profile's relay_token).
	Token string
	HTTP  *http.Client
}

// BaseFromRelayURL derives the hub's address from a profile's relay_url:
// ws://host:port/ws becomes http://host:port (wss: https).
func BaseFromRelayURL(relayURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(relayURL))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("relay_url %q is not a ws:// or wss:// URL; team mode finds the hub there", relayURL)
	}
	switch u.Scheme {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return "", fmt.Errorf("relay_url %q: want ws://host:port/ws or wss://host/ws", relayURL)
	}
	return u.Scheme + "://" + u.Host, nil
}

// Error is a refusal from the hub.
type Error struct {
	hubapi.Problem
}

func (e *Error) Error() string {
	return fmt.Sprintf("hub: %s (%d)", e.Detail, e.Status)
}

// IsReason reports whether err is the hub's refusal with this reason.
func IsReason(err error, reason string) bool {
	var he *Error
	return errors.As(err, &he) && he.Reason == reason
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 3 * time.Minute}
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any) (int, error) {
	u := strings.TrimRight(c.BaseURL, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, fmt.Errorf("hub: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return 0, fmt.Errorf("hub at %s did not answer: %w", c.BaseURL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("hub at %s: reading the answer: %w", c.BaseURL, err)
	}
	if resp.StatusCode >= 300 && resp.Header.Get(hubapi.HeaderAnswerFrom) == "service" {
		// The service's own refusal, passed on: read as the api client
		// reads it, so one classifier (payout.Classify) says what it means.
		var sa hubapi.ServiceAnswer
		_ = json.Unmarshal(data, &sa)
		return resp.StatusCode, &api.Error{StatusCode: sa.Status, Problem: sa.Problem, TraceID: sa.TraceID, Body: data, Method: method, URL: u}
	}
	if resp.StatusCode >= 300 {
		var p hubapi.Problem
		if json.Unmarshal(data, &p) != nil || p.Detail == "" {
			p = hubapi.Problem{Status: resp.StatusCode, Reason: "http_" + strconv.Itoa(resp.StatusCode), Detail: http.StatusText(resp.StatusCode)}
		}
		return resp.StatusCode, &Error{Problem: p}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("hub at %s: the answer is not the JSON expected: %w", c.BaseURL, err)
		}
	}
	return resp.StatusCode, nil
}

// Me says who the token belongs to, their roles and the hub's policy.
func (c *Client) Me(ctx context.Context) (hubapi.Me, error) {
	var m hubapi.Me
	_, err := c.do(ctx, http.MethodGet, hubapi.PathMe, nil, nil, &m)
	return m, err
}

// Submit sends a payout to the hub: sent at once, or awaiting approval.
func (c *Client) Submit(ctx context.Context, s hubapi.Submission) (hubapi.Result, error) {
	var r hubapi.Result
	_, err := c.do(ctx, http.MethodPost, hubapi.PathPayouts, nil, s, &r)
	return r, err
}

// List returns the requests that await or need attention (all: every one).
func (c *Client) List(ctx context.Context, all bool) ([]hubapi.Request, error) {
	q := url.Values{}
	if all {
		q.Set("all", "1")
	}
	var r hubapi.ListResponse
	_, err := c.do(ctx, http.MethodGet, hubapi.PathApprovals, q, nil, &r)
	return r.Results, err
}

// Get returns one request.
func (c *Client) Get(ctx context.Context, id string) (hubapi.Request, error) {
	var r hubapi.Request
	_, err := c.do(ctx, http.MethodGet, hubapi.PathApprovals+"/"+url.PathEscape(id), nil, nil, &r)
	return r, err
}

// Approve approves a request; the answer is the request after it (sent,
// when this approval completed it).
func (c *Client) Approve(ctx context.Context, id string) (hubapi.Request, error) {
	var r hubapi.Request
	_, err := c.do(ctx, http.MethodPost, hubapi.PathApprovals+"/"+url.PathEscape(id)+"/approve", nil, struct{}{}, &r)
	return r, err
}

// Reject rejects a request with a reason.
func (c *Client) Reject(ctx context.Context, id, reason string) (hubapi.Request, error) {
	var r hubapi.Request
	_, err := c.do(ctx, http.MethodPost, hubapi.PathApprovals+"/"+url.PathEscape(id)+"/reject", nil, hubapi.RejectBody{Reason: reason}, &r)
	return r, err
}

// Log returns the hub's record after seq (0: from the start); id, when
// set, keeps one request's lines.
func (c *Client) Log(ctx context.Context, after uint64, id string) ([]hubapi.LogEntry, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatUint(after, 10))
	}
	if id != "" {
		q.Set("id", id)
	}
	var r hubapi.LogResponse
	_, err := c.do(ctx, http.MethodGet, hubapi.PathLog, q, nil, &r)
	return r.Results, err
}

// Outflows returns what the hub's open requests hold back, per currency.
func (c *Client) Outflows(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	_, err := c.do(ctx, http.MethodGet, hubapi.PathOutflows, nil, nil, &out)
	return out, err
}

// Audit returns the audit record the hub keeps of the payouts it sent.
func (c *Client) Audit(ctx context.Context) (hubapi.AuditResponse, error) {
	var r hubapi.AuditResponse
	_, err := c.do(ctx, http.MethodGet, hubapi.PathAudit, nil, nil, &r)
	return r, err
}

// direct posts a payment or mandate for the hub to sign and send. What
// the hub refuses itself (token, role) or cannot send reaches no service:
// the error is api.ErrNotSent, so the caller knows nothing was created.
//
// A payment or mandate the hub's policy holds for approval is answered
// 202 with the pending request: the error is then an
// *hubapi.AwaitingApprovalError carrying it (nothing was sent yet; the
// hub sends it once approved).
func (c *Client) direct(ctx context.Context, path, kind string, body, out any) error {
	var raw json.RawMessage
	status, err := c.do(ctx, http.MethodPost, path, nil, body, &raw)
	var he *Error
	if errors.As(err, &he) && he.Reason != hubapi.ReasonNoAnswer {
		return fmt.Errorf("%w: %w", api.ErrNotSent, err)
	}
	if err != nil {
		return err
	}
	if status == http.StatusAccepted {
		var res hubapi.Result
		if err := json.Unmarshal(raw, &res); err != nil || res.Status != hubapi.StatusAwaitingApproval {
			return fmt.Errorf("hub at %s: a 202 answer that is not a request awaiting approval: %s", c.BaseURL, raw)
		}
		return &hubapi.AwaitingApprovalError{Kind: kind, Result: res}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("hub at %s: the answer is not the JSON expected: %w", c.BaseURL, err)
	}
	return nil
}

// CreatePayment has the hub sign and send a single payment (the api
// client's signature, so `payment create` runs on it unchanged).
func (c *Client) CreatePayment(ctx context.Context, req *api.PaymentRequest, idempotencyKey string) (*api.PaymentResponse, error) {
	var out api.PaymentResponse
	if err := c.direct(ctx, hubapi.PathPayments, hubapi.KindPayment, hubapi.PaymentSubmission{Request: *req, IdempotencyKey: idempotencyKey}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateMandate has the hub sign and send a VRP mandate.
func (c *Client) CreateMandate(ctx context.Context, req *api.MandateRequest, idempotencyKey string) (*api.MandateResponse, error) {
	var out api.MandateResponse
	if err := c.direct(ctx, hubapi.PathMandates, hubapi.KindMandate, hubapi.MandateSubmission{Request: *req, IdempotencyKey: idempotencyKey}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SubmitBatch sends a batch to the hub: one request, sent at once or
// awaiting approval whole.
func (c *Client) SubmitBatch(ctx context.Context, b hubapi.BatchSubmission) (hubapi.BatchResult, error) {
	var r hubapi.BatchResult
	_, err := c.do(ctx, http.MethodPost, hubapi.PathBatches, nil, b, &r)
	return r, err
}

// GetBatch returns a batch and its rows.
func (c *Client) GetBatch(ctx context.Context, id string) (hubapi.BatchResult, error) {
	var r hubapi.BatchResult
	_, err := c.do(ctx, http.MethodGet, hubapi.PathBatches+"/"+url.PathEscape(id), nil, nil, &r)
	return r, err
}

// ApproveBatch approves a whole batch.
func (c *Client) ApproveBatch(ctx context.Context, id string) (hubapi.BatchResult, error) {
	var r hubapi.BatchResult
	_, err := c.do(ctx, http.MethodPost, hubapi.PathBatches+"/"+url.PathEscape(id)+"/approve", nil, struct{}{}, &r)
	return r, err
}

// RejectBatch rejects a whole batch with a reason.
func (c *Client) RejectBatch(ctx context.Context, id, reason string) (hubapi.BatchResult, error) {
	var r hubapi.BatchResult
	_, err := c.do(ctx, http.MethodPost, hubapi.PathBatches+"/"+url.PathEscape(id)+"/reject", nil, hubapi.RejectBody{Reason: reason}, &r)
	return r, err
}
