package devtools

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TestResendOfAnUnforwardedEventAdviceIsFollowable: an event no route
// forwarded has no target, so resend says to pass --to URL and sends
// nothing; passing --to as it says delivers the event to that handler
// exactly once.
func TestResendOfAnUnforwardedEventAdviceIsFollowable(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK }, webhookrelay.Route{Patterns: []string{"payment_*"}, URL: "http://127.0.0.1:1/unused"})
	id := b.trigger(t, `{"trigger":"payout_settled"}`)
	waitUntil(t, "the event stored", func() bool {
		_, err := b.history().Event(context.Background(), id)
		return err == nil
	})
	s, _, _ := streams()
	log := relayclient.ResendLog{Path: filepath.Join(t.TempDir(), "resends.jsonl")}
	err := Resend(context.Background(), s, b.history(), log, id, &ResendOptions{Timeout: 5 * time.Second})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "pass --to") {
		t.Fatalf("resend of an unforwarded event: exit %d (%v)", cmdutil.ExitCode(err), err)
	}
	if n := len(b.handler.deliveries()); n != 0 {
		t.Fatalf("the handler got %d deliveries before --to was given", n)
	}
	// Follow it: --to the handler (on its own path, as the example).
	m := regexp.MustCompile(`pass --to (http://\S+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no --to example: %v", err)
	}
	example, _ := url.Parse(m[1])
	to := b.handler.srv.URL + example.Path
	if err := Resend(context.Background(), s, b.history(), log, id, &ResendOptions{To: to, Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("resend --to %s: %v", to, err)
	}
	got := b.handler.deliveries()
	if len(got) != 1 || got[0].path != example.Path || !strings.Contains(string(got[0].body), id) {
		t.Fatalf("deliveries after --to: %+v", got)
	}
}
