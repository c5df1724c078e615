package headless

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/paydash/paydash/config"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
)

// runPaymentCreate runs `payment create` with the given flags against the
// sandbox, as an operator types them.
func runPaymentCreate(t *testing.T, c PaymentCreator, args ...string) (Created, error) {
	t.Helper()
	o := &PaymentOptions{}
	parse(t, o.Bind, append(args, "--json", "--yes")...)
	s, out, _ := testStreams("")
	err := CreatePayment(context.Background(), s, c, api.ValidateOptions{}, o)
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

// The sandbox's GBP merchant account (api/sandbox/doc.go).
const sandboxGBPMerchant = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826"

// TestPaymentIntoAnotherCurrencysAccountIsRefusedHere: with the profile's
// merchant_accounts, a EUR payment into the GBP merchant account is
// refused before sending (exit 2), as the dashboard's form refuses it.
// Without them the service refuses it; that message says nothing was
// created and not to retry with the key, and following it (corrected,
// the same command without --idempotency-key) creates one payment.
func TestPaymentIntoAnotherCurrencysAccountIsRefusedHere(t *testing.T) {
	e := startCreateEnv(t, 100_000, nil)
	args := func(cur string) []string {
		return []string{"--amount", "25.00", "--currency", cur, "--merchant-account-id", sandboxGBPMerchant,
			"--reference", "ORDER-43", "--user-name", "Ada Lovelace", "--user-email", "ada@example.com", "--json", "--yes"}
	}
	run := func(v api.ValidateOptions, a []string) (Created, error) {
		o := &PaymentOptions{}
		parse(t, o.Bind, a...)
		s, out, _ := testStreams("")
		err := CreatePayment(context.Background(), s, e.client, v, o)
		var got Created
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &got); jerr != nil {
				t.Fatalf("output %q: %v", out, jerr)
			}
		}
		return got, err
	}

	profile := &config.Profile{MerchantAccounts: map[string]string{"GBP": sandboxGBPMerchant}}
	counting := &countingCreator{}
	o := &PaymentOptions{}
	parse(t, o.Bind, args("EUR")...)
	s, _, _ := testStreams("")
	err := CreatePayment(context.Background(), s, counting, cmdutil.Validation(profile), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || counting.payments != 0 || !strings.Contains(err.Error(), "merchant_account_id") {
		t.Fatalf("EUR into the GBP account with the profile's accounts: err %v (exit %d, %d sent), want exit %d, nothing sent",
			err, cmdutil.ExitCode(err), counting.payments, cmdutil.ExitUsage)
	}

	// Without the profile's accounts: the service refuses it.
	_, err = run(api.ValidateOptions{}, append(args("EUR"), "--idempotency-key", "99999999-2222-4333-8444-555555555555"))
	if !payout.Classify(err).Refused() || cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted {
		t.Fatalf("EUR into the GBP account: err %v, want the service's refusal", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "retry safely") || !strings.Contains(msg, "nothing was created") ||
		!strings.Contains(msg, "run the command again (without --idempotency-key") {
		t.Fatalf("refusal message:\n%s", msg)
	}
	// The advice: corrected, the same command without --idempotency-key.
	got, err := run(api.ValidateOptions{}, args("GBP"))
	if err != nil || got.ID == "" {
		t.Fatalf("corrected payment: %+v, %v", got, err)
	}
}
