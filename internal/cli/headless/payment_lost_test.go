package headless

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sync"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TestPaymentLostAnswerRetryAdviceIsSafe: the service creates a payment
// but its answer is lost on the way (a proxy turns it into a 502).
// payment create says to re-run with --idempotency-key KEY; doing just
// that gets the payment the service already made, not a second one.
func TestPaymentLostAnswerRetryAdviceIsSafe(t *testing.T) {
	e := startCreateEnv(t, 100_000, nil)
	info := e.srv.Info()
	target, _ := url.Parse(info.BaseURL)
	var mu sync.Mutex
	var madeID string
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method != http.MethodPost || r.Request.URL.Path != "/v3/payments" {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		var made struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(body, &made)
		mu.Lock()
		madeID = made.ID
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.StatusCode = http.StatusBadGateway
		return nil
	}
	proxy := httptest.NewServer(rp)
	t.Cleanup(proxy.Close)
	lossy, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: proxy.URL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: e.key,
		Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--amount", "25.00", "--currency", "GBP", "--merchant-account-id", sandboxGBPMerchant,
		"--reference", "ORDER-LOST", "--user-name", "Ada Lovelace", "--user-email", "ada@example.com"}
	_, err = runPaymentCreate(t, lossy, args...)
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted {
		t.Fatalf("lost answer: exit %d (%v)", cmdutil.ExitCode(err), err)
	}
	mu.Lock()
	first := madeID
	mu.Unlock()
	if first == "" {
		t.Fatal("the service did not create the payment whose answer was lost")
	}
	m := regexp.MustCompile(`re-run with --idempotency-key (\S+) to retry safely`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no retry advice: %v", err)
	}
	// Follow it, once answers come through again.
	got, err := runPaymentCreate(t, e.client, append(args, "--idempotency-key", m[1])...)
	if err != nil {
		t.Fatalf("following the advice: %v", err)
	}
	if got.ID != first {
		t.Fatalf("the retry made payment %s; the service had already made %s", got.ID, first)
	}
}
