package webhookrelay

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// Team mode mounts its hub on the relay's listener and lets the hub's
// users read events with their own tokens.
func TestMountsAndReadersBesideTheToken(t *testing.T) {
	const shared = "the-shared-relay-token-0001"
	const user = "a-users-own-token-000000001"
	var mounted int
	tr := startRelay(t, Config{
		Token: shared,
		Mounts: map[string]http.Handler{"/hub/": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			mounted++
			w.WriteHeader(http.StatusTeapot)
		})},
		ReaderAllowed: func(tok string) bool { return tok == user },
	})
	c := http.DefaultClient
	bearer := func(tok string) http.Header {
		h := http.Header{}
		if tok != "" {
			h.Set("Authorization", "Bearer "+tok)
		}
		return h
	}
	for tok, want := range map[string]int{shared: 200, user: 200, "": 401, "someone-elses-token-000000": 401} {
		if got := do(t, c, http.MethodGet, tr.base+"/events", bearer(tok), nil).status; got != want {
			t.Errorf("/events with token %q: %d, want %d", tok, got, want)
		}
	}
	if got := do(t, c, http.MethodGet, tr.base+"/hub/v1/me", nil, nil).status; got != http.StatusTeapot || mounted != 1 {
		t.Fatalf("mounted handler: %d (%d calls)", got, mounted)
	}
	// The mount sits behind the same guard: a foreign Origin is refused
	// before it is reached.
	h := http.Header{}
	h.Set("Origin", "https://evil.example")
	if got := do(t, c, http.MethodGet, tr.base+"/hub/v1/me", h, nil).status; got != http.StatusForbidden || mounted != 1 {
		t.Fatalf("foreign Origin on the mount: %d (%d calls)", got, mounted)
	}
}

// In team mode a resend's answer, which every reader sees in the attempt
// log, is written only with a token WriterAllowed accepts: never the
// shared token, never a reader's (issue 29: a view token wrote a forged
// "resend answer").
func TestTeamModeResendReportsNeedAWriter(t *testing.T) {
	const shared = "the-shared-relay-token-0003"
	const viewer = "a-viewers-own-token-00000003"
	const requester = "a-requesters-own-token-00003"
	tr := startRelay(t, Config{
		Token:         shared,
		ReaderAllowed: func(tok string) bool { return tok == viewer || tok == requester },
		WriterAllowed: func(tok string) bool { return tok == requester },
	})
	if resp := tr.post(t, paymentsWebhook("rw-1", "payout_executed", "po", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	report := func(tok string) int {
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + tok}}
		return do(t, http.DefaultClient, http.MethodPost, tr.base+"/events/rw-1/resends", h, []byte(`{"status":200}`)).status
	}
	for tok, want := range map[string]int{shared: http.StatusForbidden, viewer: http.StatusForbidden, requester: http.StatusCreated, "not-a-token-at-all-000000": http.StatusUnauthorized} {
		if got := report(tok); got != want {
			t.Errorf("resend report with token %q: %d, want %d", tok, got, want)
		}
	}
	// A token in the URL reads (browsers' websockets) but never writes.
	h := http.Header{"Content-Type": {"application/json"}}
	if got := do(t, http.DefaultClient, http.MethodPost, tr.base+"/events/rw-1/resends?token="+requester, h, []byte(`{"status":200}`)).status; got != http.StatusForbidden {
		t.Errorf("resend report with the token in the URL: %d, want 403", got)
	}
	// Without WriterAllowed, team mode writes nothing.
	tr2 := startRelay(t, Config{Token: shared, ReaderAllowed: func(tok string) bool { return tok == requester }})
	if resp := tr2.post(t, paymentsWebhook("rw-2", "payout_executed", "po", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	hh := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + requester}}
	if got := do(t, http.DefaultClient, http.MethodPost, tr2.base+"/events/rw-2/resends", hh, []byte(`{"status":200}`)).status; got != http.StatusForbidden {
		t.Errorf("team mode without writers: %d, want 403", got)
	}
}

func TestReadersWithoutASharedTokenStillNeedOne(t *testing.T) {
	const user = "a-users-own-token-000000002"
	tr := startRelay(t, Config{ReaderAllowed: func(tok string) bool { return tok == user }})
	h := http.Header{}
	if got := do(t, http.DefaultClient, http.MethodGet, tr.base+"/events", h, nil).status; got != http.StatusUnauthorized {
		t.Fatalf("no token on loopback with team readers: %d, want 401", got)
	}
	h.Set("Authorization", "Bearer "+user)
	if got := do(t, http.DefaultClient, http.MethodGet, tr.base+"/events", h, nil).status; got != http.StatusOK {
		t.Fatalf("a user's token: %d", got)
	}
	for _, w := range tr.Warnings() {
		if strings.Contains(w, "no relay token") {
			t.Fatalf("warned of no token while users' tokens are required: %q", w)
		}
	}
}

func TestAWebhookPathInsideAMountIsRefused(t *testing.T) {
	_, err := Open(Config{StorePath: filepath.Join(t.TempDir(), "r.db"), Path: "/hub/hooks",
		Mounts: map[string]http.Handler{"/hub/": http.NotFoundHandler()}})
	if err == nil || !strings.Contains(err.Error(), "clashes with /hub/") {
		t.Fatalf("webhook path under a mount: %v", err)
	}
}
