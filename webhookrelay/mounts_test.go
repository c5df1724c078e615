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
