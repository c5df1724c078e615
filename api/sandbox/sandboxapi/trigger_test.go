package sandboxapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
	"github.com/paydash/paydash/api/testkey"
)

// newSandbox serves a real sandbox on loopback: SendTrigger's request and
// the server's decoding of it must agree, which only the real server shows.
func newSandbox(t *testing.T) string {
	t.Helper()
	// The sandbox makes events only with a receiver registered.
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	sb, err := sandbox.New(sandbox.Options{MerchantKey: &testkey.Load(t).PublicKey, WebhookURI: hook.URL + "/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(func() { srv.Close(); sb.Close(); hook.Close() })
	return srv.URL
}

// TestSendTriggerMakesEveryEvent: every event type the Events view and
// `sandbox trigger --list` offer is one the sandbox makes, and the answer
// names it and the payout asked for.
func TestSendTriggerMakesEveryEvent(t *testing.T) {
	base := newSandbox(t)
	for _, typ := range sandboxapi.TriggerEvents {
		res, err := sandboxapi.SendTrigger(context.Background(), base+"/", sandboxapi.Trigger{Event: typ, PayoutID: "po-" + typ})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if res.EventType != typ || res.EventID == "" || res.PayoutID != "po-"+typ || res.Moved {
			t.Errorf("%s: answer %+v", typ, res)
		}
	}
}

// TestSendTriggerRefusalNamesTheField: a trigger the sandbox refuses is a
// *TriggerError with its status and the field at fault, so the CLI can
// exit as for a usage error and say what to fix.
func TestSendTriggerRefusalNamesTheField(t *testing.T) {
	base := newSandbox(t)
	_, err := sandboxapi.SendTrigger(context.Background(), base, sandboxapi.Trigger{Event: api.EventPayoutFailed, Family: "neither"})
	var te *sandboxapi.TriggerError
	if !errors.As(err, &te) || te.Status != http.StatusBadRequest || !strings.Contains(te.Msg, "family") {
		t.Fatalf("err = %#v, want a 400 TriggerError naming family", err)
	}
}

// TestSendTriggerProblemFieldsInOrder: the fields of a refusal are listed
// sorted, so the same refusal reads the same every time.
func TestSendTriggerProblemFieldsInOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != sandboxapi.EventsPath {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"title":"Invalid parameters","detail":"see errors","errors":{"reason":["too long"],"currency":["unknown","lower case"]}}`))
	}))
	defer srv.Close()
	_, err := sandboxapi.SendTrigger(context.Background(), srv.URL, sandboxapi.Trigger{Event: "payout_failed"})
	want := "sandbox refused the trigger (HTTP 400): Invalid parameters: see errors; currency unknown, lower case; reason too long"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// TestSendTriggerNotASandbox: a server without the control endpoint (the
// real service) is a 404 that says triggers need the sandbox; a URL that
// is not absolute http(s) is refused before any request.
func TestSendTriggerNotASandbox(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := sandboxapi.SendTrigger(context.Background(), srv.URL, sandboxapi.Trigger{Event: "payout_settled"})
	var te *sandboxapi.TriggerError
	if !errors.As(err, &te) || te.Status != http.StatusNotFound || !strings.Contains(te.Msg, "built-in sandbox only") {
		t.Fatalf("err = %#v, want a 404 TriggerError", err)
	}
	for _, base := range []string{"127.0.0.1:8080", "ftp://127.0.0.1", "http://"} {
		_, err := sandboxapi.SendTrigger(context.Background(), base, sandboxapi.Trigger{Event: "payout_settled"})
		if !errors.As(err, &te) || te.Status != http.StatusBadRequest {
			t.Errorf("%q: err = %#v, want a 400 TriggerError", base, err)
		}
	}
}
