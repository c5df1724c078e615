package devtools

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TestShowSaysWhetherTheRelayStillRetries: events show reads the
// relay's mark on a forward its handler has not taken: a 500 the relay
// keeps retrying is "retried until the handler answers 2xx"; a 404,
// which the relay gives up on, is not.
func TestShowSaysWhetherTheRelayStillRetries(t *testing.T) {
	ev := func(status int, errText string) relayclient.StoredEvent {
		var e relayclient.StoredEvent
		e.EventID, e.Type = "ev-1", "payout_settled"
		e.Forward = &relayclient.ForwardResult{URL: "http://127.0.0.1:3000/webhooks", Attempts: 6, StatusCode: status, Error: errText,
			Answer: &relayclient.Answer{Status: status}}
		return e
	}
	retrying := DescribeEvent(ev(500, "http://127.0.0.1:3000/webhooks answered HTTP 500"+relayclient.ForwardRetrying))
	if !strings.Contains(retrying, "not taken, retried until the handler answers 2xx") {
		t.Errorf("a forward the relay still retries:\n%s", retrying)
	}
	gaveUp := DescribeEvent(ev(404, "http://127.0.0.1:3000/webhooks answered HTTP 404"))
	if strings.Contains(gaveUp, "retried") {
		t.Errorf("a forward the relay gave up on:\n%s", gaveUp)
	}
}
