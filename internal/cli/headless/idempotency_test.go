package headless

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// runPaymentCreate runs `payment create` with the given flags against the
// sandbox, as an operator types them.
func runPaymentCreate(t *testing.T, c PaymentCreator, args ...string) (Created, error) {
	t.Helper()
	o := &PaymentOptions{}
	parse(t, o.Bind, append(args, "--json")...)
	s, out, _ := testStreams("")
	err := CreatePayment(context.Background(), s, c, false, o)
	var got Created
	if err == nil {
		if jerr := json.Unmarshal(out.Bytes(), &got); jerr != nil {
			t.Fatalf("output %q: %v", out, jerr)
		}
	}
	return got, err
}

// TestPaymentKeyReusedAdviceIsFollowable: a key already used for another
// body is answered 422 by the service. The message must not advise
// re-running with that key (which fails again forever); following what it
// says instead creates the new payment once, and the first one is left as
// it was.
func TestPaymentKeyReusedAdviceIsFollowable(t *testing.T) {
	e := startCreateEnv(t, 100_000, nil)
	const key = "11111111-2222-4333-8444-555555555555"
	common := []string{"--currency", "GBP", "--sort-code", "040004", "--account-number", "12345678",
		"--account-holder-name", "Ada Lovelace", "--user-name", "Ada Lovelace", "--user-email", "ada@example.com"}
	first, err := runPaymentCreate(t, e.client, append([]string{"--amount", "12.34", "--idempotency-key", key}, common...)...)
	if err != nil {
		t.Fatal(err)
	}

	secondArgs := append([]string{"--amount", "56.78"}, common...)
	_, err = runPaymentCreate(t, e.client, append(slices.Clone(secondArgs), "--idempotency-key", key)...)
	if !api.IsIdempotencyKeyReused(err) || cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted {
		t.Fatalf("reused key with another body: err = %v (exit %d), want the service's 422 key-reused answer", err, cmdutil.ExitCode(err))
	}
	msg := err.Error()
	if strings.Contains(msg, "re-run with --idempotency-key") || strings.Contains(msg, "to retry safely") {
		t.Fatalf("the message advises reusing the key that was refused:\n%s", msg)
	}
	const advice = "run the command again without --idempotency-key"
	if !strings.Contains(msg, advice) {
		t.Fatalf("the message does not say how to send the new request (%q):\n%s", advice, msg)
	}

	// Follow the advice literally: the same command without --idempotency-key.
	second, err := runPaymentCreate(t, e.client, secondArgs...)
	if err != nil {
		t.Fatalf("following the advice failed: %v", err)
	}
	if second.ID == "" || second.ID == first.ID || second.IdempotencyKey == key {
		t.Fatalf("the new request was not created as a new payment: first %+v, second %+v", first, second)
	}
	// The first request is untouched: its key still replays the same payment,
	// so nothing was created twice.
	again, err := runPaymentCreate(t, e.client, append([]string{"--amount", "12.34", "--idempotency-key", key}, common...)...)
	if err != nil || again.ID != first.ID {
		t.Fatalf("re-sending the first request with its key: %+v, %v; want the first payment %s replayed", again, err, first.ID)
	}
}
