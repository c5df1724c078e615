package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
)

// readOnlySandbox is a sandbox that counts every request it is sent, and
// a profile for it in PAYDASH_* variables, with a signing key and a relay
// token (withKey), or with neither: no way to send at all.
func readOnlySandbox(t *testing.T, withKey bool) (map[string]string, *sandbox.Sandbox, *atomic.Int64) {
	t.Helper()
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Options{MerchantKey: &key.PublicKey, ClientID: "ro", ClientSecret: "ro-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		sb.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	env := isolated(t)
	for k, v := range map[string]string{
		"PAYDASH_AUTH_URL": srv.URL, "PAYDASH_BASE_URL": srv.URL, "PAYDASH_PAYOUTS_URL": srv.URL,
		"PAYDASH_CLIENT_ID": "ro", "PAYDASH_CLIENT_SECRET": "ro-secret",
	} {
		env[k] = v
	}
	if withKey {
		// A relay (and so a hub) to reach: approvals would go there.
		env["PAYDASH_RELAY_URL"] = "ws://" + strings.TrimPrefix(srv.URL, "http://") + "/ws"
		env["PAYDASH_RELAY_TOKEN"] = "pdr_0123456789abcdef0123456789abcdef"
		pemKey, err := api.EncodePrivateKeyPEM(key)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "key.pem")
		if err := os.WriteFile(f, pemKey, 0o600); err != nil {
			t.Fatal(err)
		}
		env["PAYDASH_SIGNING_KEY_ID"], env["PAYDASH_SIGNING_KEY_FILE"] = "k1", f
	}
	return env, sb, &calls
}

// Issue 28 item 5: on a read-only profile every command that sends
// refuses before it reads, checks or sends anything, in one sentence,
// with exit 6; nothing reaches the service (every request it is sent is
// counted) and its ledger is as it was.
func TestReadOnlyProfilesSendNothing(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "pay.csv")
	if err := os.WriteFile(csv, []byte("name,iban,reference,amount,currency\nAda Lovelace,GB33BUKB20201555555555,INV-1,12.50,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sending := [][]string{
		{"payout", "create", "--name", "Ada Lovelace", "--iban", "GB33BUKB20201555555555", "--reference", "INV-1", "--amount", "12.50", "--currency", "GBP", "--yes"},
		{"payout", "create", "--yes"}, // refused before its flags are checked
		{"payout", "batch", csv, "--yes"},
		{"payment", "create", "--amount", "25.00", "--currency", "GBP", "--merchant-account-id", sandbox.MerchantAccountGBP,
			"--reference", "ORDER-42", "--user-name", "Ada Lovelace", "--user-email", "ada@example.com", "--yes"},
		{"mandate", "create", "--type", "sweeping", "--currency", "GBP", "--merchant-account-id", sandbox.MerchantAccountGBP,
			"--user-name", "Ada Lovelace", "--user-email", "ada@example.com", "--valid-from", "2030-12-01", "--valid-to", "2031-12-01", "--max-individual", "250.00", "--yes"},
		{"approvals", "approve", "req_1", "--yes"},
		{"approvals", "reject", "req_1", "--reason", "wrong amount"},
		{"approvals", "reject", "req_1"}, // refused before --reason is asked for
	}
	profiles := []struct {
		name  string
		key   bool
		extra map[string]string
		flags []string
		why   string
	}{
		{"read_only = true", true, map[string]string{"PAYDASH_READ_ONLY": "true"}, nil, "is read-only"},
		{"--readonly", true, nil, []string{"--readonly"}, "is read-only"},
		{"no signing key and no hub", false, nil, nil, "can send nothing: it has no signing key"},
	}
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			env, sb, calls := readOnlySandbox(t, p.key)
			for k, v := range p.extra {
				env[k] = v
			}
			before := sb.Balances()
			for _, args := range sending {
				out, errOut, code := runIn(t, env, "", append(append([]string{}, p.flags...), args...)...)
				line := strings.Join(args[:2], " ")
				if code != 6 {
					t.Errorf("%s: exit %d, want 6\nstdout: %s\nstderr: %s", line, code, out, errOut)
				}
				if !strings.Contains(errOut, "nothing was sent: ") || !strings.Contains(errOut, p.why) {
					t.Errorf("%s: stderr does not say why in one sentence:\n%s", line, errOut)
				}
				if strings.Contains(errOut, "again") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
					t.Errorf("%s: stderr is more than the one sentence, or suggests running it again:\n%s", line, errOut)
				}
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("%d requests reached the sandbox from a read-only profile", n)
			}
			after := sb.Balances()
			for i := range before {
				if before[i] != after[i] {
					t.Errorf("the sandbox's ledger moved: %+v -> %+v", before[i], after[i])
				}
			}
		})
	}
}

// The same profile that may send is not refused: the test above fails
// for the read-only reason and not for a broken profile.
func TestProfileThatMaySendIsNotRefused(t *testing.T) {
	env, _, calls := readOnlySandbox(t, true)
	_, errOut, code := runIn(t, env, "", "payout", "create", "--name", "Ada Lovelace", "--iban", "GB33BUKB20201555555555",
		"--reference", "INV-1", "--amount", "12.50", "--currency", "GBP", "--yes")
	if code == 6 || strings.Contains(errOut, "read-only") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if calls.Load() == 0 {
		t.Fatal("the payout never reached the sandbox")
	}
}
