package hubtest

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/freeport"
	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// Person is one user of the hub's users file.
type Person struct {
	Name  string
	Roles []string
}

// Options shape a Team.
type Options struct {
	// People are the hub's users, in the order their profiles are
	// written.
	People []Person
	// KeyID is the id the service knows the hub's signing key by
	// (default "hub-key").
	KeyID string
	// Webhooks sends the sandbox's webhooks to the hub's relay at HubAddr.
	Webhooks bool
	// Funds is each of GBP's and EUR's opening balance (default
	// 100,000.00).
	Funds int64
}

// Team is the sandbox, the hub's key and the team's users, on disk in
// Dir. The hub itself runs by the test's choice: the binary's or
// serve's relay at HubAddr on ConfigFile, or StartHub in process.
type Team struct {
	Sandbox *sandbox.Server
	Info    sandbox.Info
	// Service reads the sandbox with client credentials and no key: what
	// a test counts payouts with.
	Service *api.Client
	Key     *ecdsa.PrivateKey
	KeyID   string
	Dir     string
	KeyFile string
	// UsersFile is the hub's --users file; Tokens each person's token.
	UsersFile string
	Tokens    map[string]string
	// HubAddr is a free loopback host:port for a relay run as the hub.
	HubAddr string
	// names are the people in the order given.
	names []string
}

// New starts the sandbox (stopped when the test ends) and writes the key
// and users files.
func New(t testing.TB, o Options) *Team {
	t.Helper()
	if o.KeyID == "" {
		o.KeyID = "hub-key"
	}
	if o.Funds == 0 {
		o.Funds = 100_000_00
	}
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	tm := &Team{Key: key, KeyID: o.KeyID, Dir: t.TempDir(), Tokens: map[string]string{}, HubAddr: FreeLoopbackAddr(t)}
	sbo := sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: o.KeyID,
		InitialFunds: map[string]int64{"GBP": o.Funds, "EUR": o.Funds}}
	if o.Webhooks {
		sbo.WebhookURI = "http://" + tm.HubAddr + "/webhooks"
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if tm.Sandbox, err = sandbox.Listen(ctx, "127.0.0.1:0", sbo); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tm.Sandbox.Close() })
	tm.Info = tm.Sandbox.Info()
	if tm.Service, err = api.NewClient(tm.config()); err != nil {
		t.Fatal(err)
	}
	pem, err := api.EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	tm.KeyFile = filepath.Join(tm.Dir, "hub-key.pem")
	if err := os.WriteFile(tm.KeyFile, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	tm.UsersFile = filepath.Join(tm.Dir, "team.toml")
	for _, p := range o.People {
		if tm.Tokens[p.Name], err = users.Add(tm.UsersFile, p.Name, p.Roles); err != nil {
			t.Fatal(err)
		}
		tm.names = append(tm.names, p.Name)
	}
	return tm
}

// config reaches the sandbox with client credentials.
func (tm *Team) config() api.Config {
	i := tm.Info
	return api.Config{AuthURL: i.AuthURL, BaseURL: i.BaseURL, PayoutsURL: i.PayoutsURL, ClientID: i.ClientID, ClientSecret: i.ClientSecret}
}

// ServiceTOML is a profile's lines that reach the sandbox.
func (tm *Team) ServiceTOML() string {
	i := tm.Info
	return fmt.Sprintf("auth_url = %q\nbase_url = %q\npayouts_url = %q\nclient_id = %q\nclient_secret = %q\n",
		i.AuthURL, i.BaseURL, i.PayoutsURL, i.ClientID, i.ClientSecret)
}

// WriteConfig writes Dir/config.toml: the profile "hub" holding the
// signing key (the hub's --send-profile), one payouts_via_relay profile
// per person with their own token, then extra as it is. It returns the
// file's path.
func (tm *Team) WriteConfig(t testing.TB, extra string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "[profiles.hub]\n%ssigning_key_id = %q\nsigning_key_file = %q\n\n", tm.ServiceTOML(), tm.KeyID, filepath.ToSlash(tm.KeyFile))
	for _, n := range tm.names {
		fmt.Fprintf(&b, "[profiles.%s]\n%spayouts_via_relay = true\nrelay_url = \"ws://%s/ws\"\nrelay_token = %q\n\n", n, tm.ServiceTOML(), tm.HubAddr, tm.Tokens[n])
	}
	b.WriteString(extra)
	path := filepath.Join(tm.Dir, "config.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// CountPayouts counts the payouts with this reference in the sandbox's
// own report: what was really sent, however many times it was asked.
func (tm *Team) CountPayouts(t testing.TB, ref string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txs, err := tm.Service.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tx := range txs {
		if tx.BeneficiaryReference == ref {
			n++
		}
	}
	return n
}

// StartHub runs the hub in process over httptest with policy over (say
// "GBP=1000.00"), one approver, sending through the one payout pipeline
// with the team's key; it stops when the test ends. It returns the hub's
// base URL.
func (tm *Team) StartHub(t testing.TB, over string) string {
	t.Helper()
	cfg := tm.config()
	cfg.SigningKeyID, cfg.SigningKey = tm.KeyID, tm.Key
	sender, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := payout.Open(filepath.Join(tm.Dir, "hub-audit.jsonl"), "hub", nil)
	if err != nil {
		t.Fatal(err)
	}
	thresholds, err := policy.ParseThresholds(over)
	if err != nil {
		t.Fatal(err)
	}
	pol := policy.Policy{Over: thresholds, Approvers: 1, TTL: time.Hour}
	live, err := users.Open(tm.UsersFile, hub.CheckUsers(pol))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(tm.Dir, "approvals.db"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := hub.New(hub.Config{Users: live, Store: st, Policy: pol, Pipeline: hub.NewPayoutPipeline(sender, audit)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		h.Close()
		_ = st.Close()
	})
	return srv.URL
}

// FreeLoopbackAddr is a loopback host:port nothing listens on now,
// which no outgoing connection will take meanwhile (freeport).
func FreeLoopbackAddr(t testing.TB) string {
	t.Helper()
	return freeport.Addr(t)
}

// AuditLines reads the hub's audit answer (GET /hub/v1/audit) as the
// audit record's own lines, for payout.Attempts and the like: the wire
// carries each line's fields as the record keeps them, so a JSON round
// trip reads them.
func AuditLines(t testing.TB, wire []hubapi.AuditEntry) []payout.Entry {
	t.Helper()
	data, err := json.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	var es []payout.Entry
	if err := json.Unmarshal(data, &es); err != nil {
		t.Fatal(err)
	}
	return es
}
