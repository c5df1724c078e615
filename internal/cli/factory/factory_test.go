package factory_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// signing is a direct profile's signing key: without one it could send
// nothing, and the factory would call it read-only.
const signing = `signing_key_id = "k1"
signing_key_file = "key.pem"
`

const service = `auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "client"
client_secret = "secret"
`

// setup writes a config with a direct profile, a team profile whose hub
// is hubAddr, and a team profile without the person's own token; it
// returns a factory maker and what the factories wrote on stderr.
func setup(t *testing.T, hubAddr string) (func(profile string) *factory.Factory, *strings.Builder, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`[profiles.direct]
%s%s
[profiles.team]
%spayouts_via_relay = true
relay_url = "ws://%s/ws"
relay_token = "ada-own-token-0123456789abcdef"

[profiles.tokenless]
%spayouts_via_relay = true
relay_url = "ws://%s/ws"
`, service, signing, service, hubAddr, service, hubAddr)
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	pemKey, err := api.EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, "state")}
	errb := &strings.Builder{}
	s := &cmdutil.Streams{Out: &strings.Builder{}, Err: errb, Getenv: func(k string) string { return env[k] }}
	return func(profile string) *factory.Factory {
		return factory.New(s, &cmdutil.Global{ConfigPath: path, Profile: profile})
	}, errb, path
}

// routes records which way a payout went.
type routes struct {
	direct *factory.DirectPayouts
	hub    *factory.HubPayouts
}

func (r *routes) Direct(d *factory.DirectPayouts) error  { r.direct = d; return nil }
func (r *routes) ThroughHub(h *factory.HubPayouts) error { r.hub = h; return nil }

func TestADirectProfileSendsWithItsOwnClient(t *testing.T) {
	f, _, _ := setup(t, "127.0.0.1:1")
	fac := f("direct")
	client, err := fac.Client()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fac.Balances(); err != nil || b != factory.BalanceReader(client) {
		t.Fatalf("balances: %T %v, want the profile's client", b, err)
	}
	if c, err := fac.PaymentCreator(); err != nil || c != factory.PaymentCreator(client) {
		t.Fatalf("payments: %T %v", c, err)
	}
	if c, err := fac.MandateCreator(); err != nil || c != factory.MandateCreator(client) {
		t.Fatalf("mandates: %T %v", c, err)
	}
	ps, err := fac.PayoutSender()
	if err != nil {
		t.Fatal(err)
	}
	var r routes
	if err := ps.Send(&r); err != nil || r.hub != nil || r.direct == nil || r.direct.Service != client || r.direct.Audit == nil || r.direct.Profile.Name != "direct" {
		t.Fatalf("payout route: %+v %v, want direct with the client and the audit record", r, err)
	}
	if hub, err := fac.Hub(); hub != nil || err != nil {
		t.Fatalf("a direct profile has a hub: %v %v", hub, err)
	}
	rec, err := fac.AuditRecord(context.Background())
	if _, ok := rec.(*payout.Log); !ok || err != nil {
		t.Fatalf("audit record: %T %v, want the profile's own", rec, err)
	}
	d, err := fac.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	if d.Backend != factory.Service(client) || d.Approvals != nil || d.Audit == nil || d.Guard.Sender != payout.Sender(client) || d.Guard.Source != payout.SourceForm {
		t.Fatalf("dashboard: %+v", d)
	}
	if !factory.SendsDirectly(d.Profile) {
		t.Fatal("SendsDirectly says a direct profile does not")
	}
}

func TestATeamProfileSendsThroughItsHub(t *testing.T) {
	f, _, _ := setup(t, "127.0.0.1:8787")
	fac := f("team")
	want := hubclient.Client{BaseURL: "http://127.0.0.1:8787", Token: "ada-own-token-0123456789abcdef"}
	if b, err := fac.Balances(); err != nil {
		t.Fatal(err)
	} else if h, ok := b.(*hubclient.HeldBalances); !ok || *h.Hub != want {
		t.Fatalf("balances: %T %+v, want the service's less what the hub holds", b, b)
	}
	for what, get := range map[string]func() (any, error){
		"payments":  func() (any, error) { return fac.PaymentCreator() },
		"mandates":  func() (any, error) { return fac.MandateCreator() },
		"approvals": func() (any, error) { return fac.Hub() },
	} {
		got, err := get()
		if hc, ok := got.(*hubclient.Client); err != nil || !ok || *hc != want {
			t.Fatalf("%s: %T %+v %v, want the hub at the relay's address with the person's token", what, got, got, err)
		}
	}
	ps, err := fac.PayoutSender()
	if err != nil {
		t.Fatal(err)
	}
	var r routes
	if err := ps.Send(&r); err != nil || r.direct != nil || r.hub == nil || *r.hub.Hub != want {
		t.Fatalf("payout route: %+v %v, want through the hub", r, err)
	}
	d, err := fac.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Backend.(*hubclient.TeamBackend); !ok || d.Approvals == nil || *d.Approvals != want {
		t.Fatalf("dashboard: %T %+v", d.Backend, d.Approvals)
	}
	// The form's pipeline cannot send around the hub.
	if err := d.Guard.Sender.CreatePayout(context.Background(), &api.PayoutRequest{}); !errors.Is(err, hubclient.ErrFormNotThroughHub) || !errors.Is(err, api.ErrNotSent) {
		t.Fatalf("a payout around the hub: %v", err)
	}
	if factory.SendsDirectly(d.Profile) {
		t.Fatal("SendsDirectly says a team profile does")
	}
}

func TestATeamProfileWithoutItsTokenSendsNothing(t *testing.T) {
	f, _, _ := setup(t, "127.0.0.1:8787")
	for what, get := range map[string]func(*factory.Factory) error{
		"balances":  func(f *factory.Factory) error { _, err := f.Balances(); return err },
		"payments":  func(f *factory.Factory) error { _, err := f.PaymentCreator(); return err },
		"mandates":  func(f *factory.Factory) error { _, err := f.MandateCreator(); return err },
		"payouts":   func(f *factory.Factory) error { _, err := f.PayoutSender(); return err },
		"approvals": func(f *factory.Factory) error { _, err := f.Hub(); return err },
		"dashboard": func(f *factory.Factory) error { _, err := f.Dashboard(); return err },
		"log":       func(f *factory.Factory) error { _, err := f.AuditRecord(context.Background()); return err },
	} {
		err := get(f("tokenless"))
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(fmt.Sprint(err), `profile "tokenless" has no relay_token`) {
			t.Errorf("%s: exit %d, %v; want a usage error naming what is missing", what, cmdutil.ExitCode(err), err)
		}
	}
}

func TestTheHubsAuditRecord(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hub/v1/audit" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = w.Write([]byte(`{"status":403,"reason":"forbidden","detail":"not your hub"}`))
			return
		}
		_, _ = w.Write([]byte(`{"profile":"hub","results":[{"event":"attempt","profile":"hub","transaction_id":"tx-1"}]}`))
	}))
	defer srv.Close()
	f, _, _ := setup(t, strings.TrimPrefix(srv.URL, "http://"))
	rec, err := f("team").AuditRecord(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := rec.Entries(); rec.Path() != "the team's hub at "+srv.URL || rec.Profile() != "hub" || len(es) != 1 {
		t.Fatalf("the hub's record: %q %q %+v", rec.Path(), rec.Profile(), es)
	}
	status = http.StatusForbidden
	if _, err := f("team").AuditRecord(context.Background()); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("a refused read: exit %d %v, want a usage error", cmdutil.ExitCode(err), err)
	}
}

func TestTheProfileIsLoadedOnce(t *testing.T) {
	f, errb, path := setup(t, "127.0.0.1:8787")
	// A secret file others can read: loading warns.
	secret := filepath.Join(filepath.Dir(path), "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(service, `client_secret = "secret"`, fmt.Sprintf("client_secret_file = %q", filepath.ToSlash(secret)), 1)
	if err := os.WriteFile(path, []byte("[profiles.warned]\n"+cfg+signing), 0o600); err != nil {
		t.Fatal(err)
	}
	fac := f("warned")
	if _, err := fac.Balances(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := fac.PayoutSender(); err != nil {
		t.Fatalf("the second sender read the config again: %v", err)
	}
	if n := strings.Count(errb.String(), "can be read by other users"); n != 1 {
		t.Fatalf("warned %d times: %q", n, errb.String())
	}
}

func TestForProfileChecksALoadedProfile(t *testing.T) {
	p := &config.Profile{Name: "team", PayoutsViaRelay: true, RelayURL: "wss://hub.example/ws"}
	if _, err := factory.ForProfile(&cmdutil.Streams{}, p).Hub(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("a team profile without a token: %v", err)
	}
	p.RelayToken = "ada-own-token-0123456789abcdef"
	if hc, err := factory.ForProfile(&cmdutil.Streams{}, p).Hub(); err != nil || hc.BaseURL != "https://hub.example" {
		t.Fatalf("the hub of a loaded profile: %+v %v", hc, err)
	}
}

func TestHubError(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   int
	}{{409, cmdutil.ExitNotAccepted}, {403, cmdutil.ExitUsage}, {422, cmdutil.ExitUsage}, {502, cmdutil.ExitFailure}} {
		he := &hubclient.Error{}
		he.Status = tc.status
		if got := cmdutil.ExitCode(factory.HubError(fmt.Errorf("wrapped: %w", he))); got != tc.want {
			t.Errorf("hub status %d: exit %d, want %d", tc.status, got, tc.want)
		}
	}
	plain := errors.New("hub at http://x did not answer")
	if factory.HubError(plain) != plain { //nolint:errorlint // the very error, returned as it is
		t.Error("an error not from the hub was changed")
	}
}

// Issue 28 item 5: the factory is the one place that decides a profile
// may send nothing, and every sender it hands out refuses then, exit 6.
func TestReadOnlyIsDecidedByTheFactory(t *testing.T) {
	base := &config.Profile{Name: "p", SigningKeyID: "k1", SigningKeyFile: "key.pem"}
	cases := []struct {
		name string
		p    config.Profile
		want string // "" may send
	}{
		{"a direct profile with a key", *base, ""},
		{"read_only = true", config.Profile{Name: "p", SigningKeyID: "k1", SigningKeyFile: "key.pem", ReadOnly: true}, "is read-only"},
		{"no signing key, no hub", config.Profile{Name: "p"}, "no signing key"},
		{"no signing key, a hub", config.Profile{Name: "p", PayoutsViaRelay: true}, ""},
		{"a hub, read_only", config.Profile{Name: "p", PayoutsViaRelay: true, ReadOnly: true}, "is read-only"},
	}
	for _, tc := range cases {
		got := factory.ReadOnly(&tc.p)
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: ReadOnly = %q, want %q", tc.name, got, tc.want)
		}
	}

	f, _, path := setup(t, "127.0.0.1:1")
	if err := os.WriteFile(path, []byte("[profiles.viewer]\n"+service+signing+"read_only = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fac := f("viewer")
	if err := fac.RefuseReadOnly(); cmdutil.ExitCode(err) != cmdutil.ExitReadOnly {
		t.Fatalf("RefuseReadOnly: exit %d %v", cmdutil.ExitCode(err), err)
	}
	if _, err := fac.PayoutSender(); cmdutil.ExitCode(err) != cmdutil.ExitReadOnly {
		t.Errorf("PayoutSender: exit %d %v", cmdutil.ExitCode(err), err)
	}
	if _, err := fac.PaymentCreator(); cmdutil.ExitCode(err) != cmdutil.ExitReadOnly {
		t.Errorf("PaymentCreator: exit %d %v", cmdutil.ExitCode(err), err)
	}
	if _, err := fac.MandateCreator(); cmdutil.ExitCode(err) != cmdutil.ExitReadOnly {
		t.Errorf("MandateCreator: exit %d %v", cmdutil.ExitCode(err), err)
	}
	// It still reads: balances and the dashboard, which is told why.
	if _, err := fac.Balances(); err != nil {
		t.Errorf("Balances on a read-only profile: %v", err)
	}
	d, err := fac.Dashboard()
	if err != nil {
		t.Fatalf("Dashboard: %v", err)
	}
	if !strings.Contains(d.ReadOnly, "is read-only") {
		t.Errorf("Dashboard: ReadOnly %q", d.ReadOnly)
	}
	// --readonly makes a profile that may send read-only for one run.
	if err := os.WriteFile(path, []byte("[profiles.sender]\n"+service+signing), 0o600); err != nil {
		t.Fatal(err)
	}
	streams := &cmdutil.Streams{Out: &strings.Builder{}, Err: &strings.Builder{}, Getenv: func(string) string { return "" }}
	if err := factory.New(streams, &cmdutil.Global{ConfigPath: path, Profile: "sender"}).RefuseReadOnly(); err != nil {
		t.Errorf("a profile that may send was refused: %v", err)
	}
	if err := factory.New(streams, &cmdutil.Global{ConfigPath: path, Profile: "sender", ReadOnly: true}).RefuseReadOnly(); cmdutil.ExitCode(err) != cmdutil.ExitReadOnly {
		t.Errorf("--readonly: exit %d %v", cmdutil.ExitCode(err), err)
	}

	// An approver needs no signing key (the hub signs): a profile with a
	// token for the hub, or --hub, may approve; one with neither, or said
	// read-only, may not.
	approver := "[profiles.approver]\n" + service + "relay_token = \"bob-own-token-0123456789abcdef\"\n"
	nothing := "[profiles.nothing]\n" + service
	if err := os.WriteFile(path, []byte(approver+nothing+"[profiles.viewer]\n"+service+"relay_token = \"bob-own-token-0123456789abcdef\"\nread_only = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		profile, hub string
		refused      bool
	}{
		{"approver", "", false}, {"nothing", "", true}, {"nothing", "http://127.0.0.1:1", false}, {"viewer", "", true},
	} {
		err := factory.New(streams, &cmdutil.Global{ConfigPath: path, Profile: tc.profile}).RefuseDecisions(tc.hub)
		if (cmdutil.ExitCode(err) == cmdutil.ExitReadOnly) != tc.refused {
			t.Errorf("decisions on %s (--hub %q): %v, refused %v", tc.profile, tc.hub, err, tc.refused)
		}
	}
}
