package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// Text a compromised or hostile service, payee or webhook sender puts in
// front of an operator: an OSC 52 clipboard write, a screen clear, a
// window-title change, a bidi override that reverses an IBAN, a carriage
// return that overwrites the line.
const (
	evilName = "Evil\x1b]52;c;ZXZpbA==\aCorp\x1b]0;pwned\a"
	evilRef  = "INV\u202e4321\x1b[2J\rPAID"
	evilText = "refused\x1b[31m \u2067x\u2069 \u0085\u009b2J"
)

// rawUnsafe returns the first character of s that would drive a terminal
// (escaped as termtext shows it), or "".
func rawUnsafe(s string) string {
	for _, r := range s {
		if r != '\n' && termtext.Unsafe(r) {
			return termtext.Safe(string(r))
		}
	}
	return ""
}

// hostileService is a sandbox behind a proxy that plays a compromised
// service: the report's names and references, the balances' statuses and
// every payout refusal carry terminal escapes.
func hostileService(t *testing.T) map[string]string {
	t.Helper()
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "k1",
		InitialFunds: map[string]int64{"GBP": 10_000_000, "EUR": 10_000_000}, History: 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	info := srv.Info()
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/payouts") {
			w.Header().Set("Content-Type", api.ContentTypeProblemJSON)
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"type":"about:blank","title":"` + quoted(evilText) + `","status":422,"detail":"` + quoted(evilName) + `"}`))
			return
		}
		body, _ := io.ReadAll(r.Body)
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimRight(info.PayoutsURL, "/")+r.URL.RequestURI(), bytes.NewReader(body))
		out.Header = r.Header.Clone()
		out.Header.Del("Accept-Encoding")
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		data = bytes.ReplaceAll(data, []byte(`"beneficiary_name":"`), []byte(`"beneficiary_name":"`+quoted(evilName)))
		data = bytes.ReplaceAll(data, []byte(`"beneficiary_reference":"`), []byte(`"beneficiary_reference":"`+quoted(evilRef)))
		for k, v := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(data)
	}))
	t.Cleanup(proxy.Close)
	pemKey, _ := api.EncodePrivateKeyPEM(key)
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	env := isolated(t)
	for k, v := range map[string]string{
		"PAYDASH_AUTH_URL": info.AuthURL, "PAYDASH_BASE_URL": info.BaseURL, "PAYDASH_PAYOUTS_URL": proxy.URL,
		"PAYDASH_CLIENT_ID": info.ClientID, "PAYDASH_CLIENT_SECRET": info.ClientSecret,
		"PAYDASH_SIGNING_KEY_ID": "k1", "PAYDASH_SIGNING_KEY_FILE": keyFile,
	} {
		env[k] = v
	}
	return env
}

// runFor runs one command line in-process, stopped after d (a command
// that streams, like events tail, stops there).
func runFor(t *testing.T, env map[string]string, d time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out, errb bytes.Buffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] }}
	code := run(ctx, args, s)
	return out.String(), errb.String(), code
}

// TestNoCommandPrintsOutsideTextRaw: every text output of every command
// (tables, summaries, logs, errors with the service's texts, config
// values, the events tail) shows hostile names, references, service texts
// and event fields escaped, and visibly so; --json and --csv keep them
// exactly.
func TestNoCommandPrintsOutsideTextRaw(t *testing.T) {
	env := hostileService(t)
	check := func(what, out, errOut string) {
		t.Helper()
		if c := rawUnsafe(out + errOut); c != "" {
			t.Errorf("%s prints %s raw:\n%s", what, c, termtext.Lines(out+errOut))
		}
	}

	out, errOut, code := runFor(t, env, 30*time.Second, "transactions", "--since", "3650d")
	check("transactions", out, errOut)
	if code != 0 || !strings.Contains(out, `Evil\x1b]52`) {
		t.Errorf("transactions: exit %d, the hostile name not shown escaped:\n%s%s", code, out, errOut)
	}
	out, _, _ = runFor(t, env, 30*time.Second, "transactions", "--since", "3650d", "--json")
	var rows []api.Transaction
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var page any
		if err := dec.Decode(&page); err != nil {
			t.Fatalf("transactions --json: %v\n%s", err, out)
		}
		b, _ := json.Marshal(page)
		var one []api.Transaction
		if json.Unmarshal(b, &one) == nil {
			rows = append(rows, one...)
		} else {
			var tx api.Transaction
			_ = json.Unmarshal(b, &tx)
			rows = append(rows, tx)
		}
	}
	if len(rows) == 0 || !strings.HasPrefix(rows[0].BeneficiaryName, evilName) || !strings.HasPrefix(rows[0].BeneficiaryReference, evilRef) {
		t.Errorf("transactions --json does not keep the exact data: %d rows, first %+v", len(rows), rows)
	}
	out, _, _ = runFor(t, env, 30*time.Second, "transactions", "--since", "3650d", "--csv")
	if !strings.Contains(out, evilName) {
		t.Errorf("transactions --csv does not keep the exact data:\n%s", termtext.Lines(out))
	}

	out, errOut, _ = runFor(t, env, 30*time.Second, "balances")
	check("balances", out, errOut)

	out, errOut, code = runFor(t, env, 30*time.Second, "payout", "create", "--name", "Ada Lovelace", "--iban", "GB33BUKB20201555555555",
		"--reference", "R-1", "--amount", "1.00", "--currency", "GBP", "--yes")
	check("payout create (the service's refusal)", out, errOut)
	if code == 0 || !strings.Contains(errOut, `\x1b`) {
		t.Errorf("payout create: exit %d, the refusal text not shown escaped:\n%s", code, errOut)
	}

	// The audit record is a file on disk: one edited by hand (or by a
	// hostile program) shows escaped too.
	logs, _ := filepath.Glob(filepath.Join(env["XDG_STATE_HOME"], "paydash", "audit", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("audit record files %v", logs)
	}
	entry, _ := json.Marshal(map[string]any{"event": "attempt", "transaction_id": "0e8f7a6b-5c4d-4e3f-a2b1-c0d9e8f7a6b5", "at": time.Now().UTC(),
		"beneficiary_name": evilName, "beneficiary_iban": "GB33BUKB20201555555555", "beneficiary_reference": evilRef,
		"amount_in_minor": 100, "currency": "GBP", "profile": evilText, "source": evilText})
	f, err := os.OpenFile(logs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(append(entry, '\n'))
	f.Close()
	out, errOut, code = runFor(t, env, 30*time.Second, "payouts", "log")
	check("payouts log", out, errOut)
	if code != 0 || !strings.Contains(out, `Evil\x1b]52`) {
		t.Errorf("payouts log: exit %d, the hostile entry not shown escaped:\n%s%s", code, out, errOut)
	}

	csv := filepath.Join(t.TempDir(), "pay.csv")
	if err := os.WriteFile(csv, []byte("name,iban,reference,amount,currency\n\""+evilName+"\",GB33BUKB20201555555555,\""+evilRef+"\",1.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ = runFor(t, env, 30*time.Second, "payout", "batch", csv, "--dry-run")
	check("payout batch --dry-run (a hostile file)", out, errOut)

	// A batch the service refuses row by row with hostile texts: the
	// summary lists each refusal escaped.
	clean := filepath.Join(t.TempDir(), "ok.csv")
	if err := os.WriteFile(clean, []byte("name,iban,reference,amount,currency\nAda,GB33BUKB20201555555555,B-1,1.00,GBP\nBea,GB33BUKB20201555555555,B-2,2.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runFor(t, env, 60*time.Second, "payout", "batch", clean, "--yes", "--wait", "0")
	check("payout batch (the service's refusals)", out, errOut)
	if code == 0 || !strings.Contains(out+errOut, `\x1b`) {
		t.Errorf("payout batch: exit %d, the refusals not shown escaped:\n%s%s", code, out, errOut)
	}

	hostileEnv := map[string]string{}
	for k, v := range env {
		hostileEnv[k] = v
	}
	hostileEnv["PAYDASH_BASE_URL"] = env["PAYDASH_BASE_URL"] + "/\x1b]0;pwned\a"
	out, errOut, _ = runFor(t, hostileEnv, 30*time.Second, "config", "show")
	check("config show", out, errOut)
	out, errOut, _ = runFor(t, hostileEnv, 30*time.Second, "config", "check")
	check("config check", out, errOut)

	// A relay holding a hostile event: events tail shows it escaped;
	// --json keeps it exactly.
	relay := relaytest.Start(t, webhookrelay.Config{})
	body, _ := json.Marshal(map[string]any{"event_type": api.EventPayoutRejected + "\u202e", "event_id": "7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		"event_body": map[string]any{"transaction_id": "0e8f7a6b-5c4d-4e3f-a2b1-c0d9e8f7a6b5", "reason": evilText}})
	req, _ := http.NewRequest(http.MethodPost, relay.WebhookURL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderWebhookTimestamp, time.Now().UTC().Format(api.WebhookTimeLayout))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("relay: %d", resp.StatusCode)
	}
	out, errOut, _ = runFor(t, env, 2*time.Second, "events", "tail", "--since", "0", "--relay", relay.WSURL)
	check("events tail", out, errOut)
	if !strings.Contains(out, `\u202e`) {
		t.Errorf("events tail does not show the event escaped:\n%s", out)
	}
	out, _, _ = runFor(t, env, 2*time.Second, "events", "tail", "--since", "0", "--relay", relay.WSURL, "--json")
	if !strings.Contains(out, `payout_rejected\u202e`) && !strings.Contains(out, "payout_rejected\u202e") {
		t.Errorf("events tail --json does not keep the type:\n%s", termtext.Lines(out))
	}
}
