package headless

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// profileEnv points a profile at a sandbox through PAYDASH_* variables.
func profileEnv(t *testing.T, srv *sandbox.Server, key *ecdsa.PrivateKey, secret string) map[string]string {
	t.Helper()
	pemKey, _ := api.EncodePrivateKeyPEM(key)
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	info := srv.Info()
	return map[string]string{
		"PAYDASH_AUTH_URL": info.AuthURL, "PAYDASH_BASE_URL": info.BaseURL, "PAYDASH_PAYOUTS_URL": info.PayoutsURL,
		"PAYDASH_CLIENT_ID": info.ClientID, "PAYDASH_CLIENT_SECRET": secret,
		"PAYDASH_SIGNING_KEY_ID": "k1", "PAYDASH_SIGNING_KEY_FILE": keyFile,
		"PAYDASH_RELAY_URL": "ws://127.0.0.1:1/ws", // nothing listens: the relay check only warns
		"HOME":              t.TempDir(),
	}
}

// checkSandbox is a sandbox on loopback whose client secret is secret,
// and the merchant key it trusts, for config check's tests.
func checkSandbox(t *testing.T, secret string) (*sandbox.Server, *ecdsa.PrivateKey) {
	t.Helper()
	return startSandbox(t, sandbox.Options{ClientSecret: secret, History: 0})
}

// startSandbox serves a sandbox with the options on loopback until the
// test ends, trusting a new merchant signing key, which it returns.
func startSandbox(t *testing.T, o sandbox.Options) (*sandbox.Server, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o.MerchantKey = &key.PublicKey
	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, key
}

func TestConfigCheckSaysExactlyWhatFailed(t *testing.T) {
	ctx := context.Background()
	srv, key := checkSandbox(t, "right-secret")
	tests := []struct {
		name     string
		secret   string
		wantCode int
		want     []string
	}{
		{"good credentials", "right-secret", 0, []string{"ok    token for scope payouts", "ok    token for scope recurring_payments:sweeping", "warn  relay ws://127.0.0.1:1/ws"}},
		{"wrong secret", "wrong-secret", cmdutil.ExitFailure, []string{"FAIL  token for scope payouts", "401", "check(s) failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := profileEnv(t, srv, key, tc.secret)
			s, out, _ := testStreams("")
			s.Getenv = func(k string) string { return env[k] }
			err := ConfigCheck(ctx, s, &cmdutil.Global{}, false)
			if got := cmdutil.ExitCode(err); got != tc.wantCode {
				t.Fatalf("exit %d (%v), want %d\n%s", got, err, tc.wantCode, out)
			}
			all := out.String()
			if err != nil {
				all += err.Error()
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			if strings.Contains(all, tc.secret) {
				t.Errorf("the client secret reached the output:\n%s", all)
			}
		})
	}
}

// TestConfigCheckFailsOnARefusedRelayToken: the relay answers /healthz
// to anyone, so a wrong relay_token used to pass; the dashboard then
// retried the 401 for ever. The check reads the history with the token.
func TestConfigCheckFailsOnARefusedRelayToken(t *testing.T) {
	ctx := context.Background()
	srv, key := checkSandbox(t, "right-secret")
	const token = "right-relay-token-0123"
	rl := relaytest.Start(t, webhookrelay.Config{Token: token})
	for _, tc := range []struct {
		token    string
		wantCode int
		want     string
	}{
		{token, 0, "ok    relay " + rl.WSURL},
		{"wrong-relay-token-0123", cmdutil.ExitFailure, "FAIL  relay " + rl.WSURL + ": up, but relay history: relay refused the token (HTTP 401)"},
	} {
		env := profileEnv(t, srv, key, "right-secret")
		env["PAYDASH_RELAY_URL"], env["PAYDASH_RELAY_TOKEN"] = rl.WSURL, tc.token
		s, out, _ := testStreams("")
		s.Getenv = func(k string) string { return env[k] }
		err := ConfigCheck(ctx, s, &cmdutil.Global{}, false)
		if got := cmdutil.ExitCode(err); got != tc.wantCode || !strings.Contains(out.String(), tc.want) {
			t.Errorf("relay token %q: exit %d (%v), want %d and %q:\n%s", tc.token, got, err, tc.wantCode, tc.want, out)
		}
		if strings.Contains(out.String(), tc.token) {
			t.Errorf("the relay token reached the output:\n%s", out)
		}
	}
}

// syncBuffer lets the test read what Tail writes while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTailPrintsNewEventsFilteredByType(t *testing.T) {
	rl := relaytest.Start(t, webhookrelay.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	post := func(eventType, eventID, payoutID string) {
		t.Helper()
		postEvent(t, rl.WebhookURL, eventType, eventID, payoutID)
	}
	// An event from before the tail started is not shown by default.
	post(api.EventPayoutSettled, "11111111-1111-4111-8111-111111111111", "aaaaaaaa-0000-4000-8000-000000000001")

	var out syncBuffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &syncBuffer{}}
	tailCtx, stopTail := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Tail(tailCtx, s, rl.WSURL, "", &TailOptions{Since: "now", Types: []string{api.EventPayoutSettled, api.EventPayoutRejected}})
	}()
	// Posted until the tail is connected and shows it (the subscription
	// races the first post).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; !strings.Contains(out.String(), "bbbbbbbb-0000-4000-8000-00000000000"); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no event printed; output: %q", out.String())
		}
		post(api.EventPayoutAuthorised, newID(i, "2"), "cccccccc-0000-4000-8000-000000000001") // filtered out
		post(api.EventPayoutSettled, newID(i, "3"), "bbbbbbbb-0000-4000-8000-00000000000"+string(rune('0'+i%10)))
		time.Sleep(50 * time.Millisecond)
	}
	stopTail()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "aaaaaaaa") {
		t.Errorf("an event from before the tail started was printed:\n%s", got)
	}
	if strings.Contains(got, "cccccccc") || strings.Contains(got, api.EventPayoutAuthorised) {
		t.Errorf("an event of a filtered-out type was printed:\n%s", got)
	}
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		if !strings.Contains(l, "payout_settled") || !strings.Contains(l, "settled") {
			t.Errorf("unexpected line %q", l)
		}
	}
}

func newID(i int, prefix string) string {
	const hex = "0123456789abcdef"
	b := []byte("00000000-0000-4000-8000-000000000000")
	b[0] = prefix[0]
	b[len(b)-1] = hex[i%16]
	b[len(b)-2] = hex[(i/16)%16]
	return string(b)
}

// TestTailNotesAnUnknownType: a misspelt --type printed nothing for ever;
// it is now named on stderr with the types there are.
func TestTailNotesAnUnknownType(t *testing.T) {
	rl := relaytest.Start(t, webhookrelay.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var errb syncBuffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &syncBuffer{}, Err: &errb}
	_ = Tail(ctx, s, rl.WSURL, "", &TailOptions{Since: "0", Types: []string{"payout_settld,payout_failed"}})
	if !strings.Contains(errb.String(), "note: --type payout_settld is not an event type of the interface") || strings.Contains(errb.String(), "--type payout_failed") {
		t.Fatalf("stderr:\n%s", errb.String())
	}
}
