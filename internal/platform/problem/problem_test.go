package problem_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/paydash/paydash/internal/platform/problem"
)

// TestWrite pins the refusal's wire form clients parse: status, JSON
// members, content type and no caching.
func TestWrite(t *testing.T) {
	rec := httptest.NewRecorder()
	problem.Write(rec, http.StatusUnauthorized, "unauthorized", `send "Authorization: Bearer <token>"`)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("status %d", rec.Code)
	}
	if ct, cc := rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"); ct != "application/json" || cc != "no-store" {
		t.Errorf("Content-Type %q, Cache-Control %q", ct, cc)
	}
	const want = `{"status":401,"reason":"unauthorized","detail":"send \"Authorization: Bearer \u003ctoken\u003e\""}` + "\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}
