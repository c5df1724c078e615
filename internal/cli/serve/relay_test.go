package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/freeport"
)

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	return freeport.Addr(t)
}

type relayRun struct {
	info RelayInfo
	done chan struct{}
	err  error
	errb *lockedBuffer
	// stop ends the relay and waits for it; errb is then safe to read.
	stop func()
}

// lockedBuffer is stderr the test may read while the relay writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// log is what the relay has written on stderr so far.
func (r *relayRun) log() string { return r.errb.String() }

// startRelay runs `paydash [global] relay [args]` in process and waits for
// its --json start-up line.
func startRelay(t *testing.T, g *cmdutil.Global, env map[string]string, args ...string) (*relayRun, error) {
	t.Helper()
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		if k == "HOME" {
			return state
		}
		return env[k]
	}
	o := &RelayOptions{}
	fs := pflag.NewFlagSet("relay", pflag.ContinueOnError)
	o.Bind(fs)
	if err := fs.Parse(append([]string{"--json"}, args...)); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	run := &relayRun{done: make(chan struct{}), errb: &lockedBuffer{}}
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: pw, Err: run.errb, Getenv: getenv}
	ctx, cancel := context.WithCancel(context.Background())
	run.stop = func() { cancel(); <-run.done }
	go func() {
		run.err = Relay(ctx, s, g, o)
		pw.CloseWithError(errors.New("relay returned"))
		close(run.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-run.done:
		case <-time.After(10 * time.Second):
			t.Error("relay did not stop")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		<-run.done
		return nil, run.err
	}
	if err := json.Unmarshal([]byte(line), &run.info); err != nil {
		t.Fatalf("start-up line %q: %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return run, nil
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func getStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRelayUsesTheProfilesListenAndToken(t *testing.T) {
	addr := freeAddr(t)
	const token = "relay-token-0123456789"
	cfg := writeConfig(t, "[profiles.dev]\nrelay_listen = \""+addr+"\"\nrelay_token = \""+token+"\"\n")
	run, err := startRelay(t, &cmdutil.Global{ConfigPath: cfg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.info.Listen != addr {
		t.Fatalf("relay listens on %s, want relay_listen %s", run.info.Listen, addr)
	}
	if got := getStatus(t, run.info.EventsURL, ""); got != http.StatusUnauthorized {
		t.Errorf("/events without the profile's token: %d, want 401", got)
	}
	if got := getStatus(t, run.info.EventsURL, token); got != http.StatusOK {
		t.Errorf("/events with the profile's token: %d, want 200", got)
	}
}

func TestRelayFlagsOverrideTheProfile(t *testing.T) {
	cfg := writeConfig(t, "[profiles.dev]\nrelay_listen = \""+freeAddr(t)+"\"\nrelay_token = \"profile-token-0123456789\"\n")
	addr := freeAddr(t)
	run, err := startRelay(t, &cmdutil.Global{ConfigPath: cfg}, nil, "--listen", addr, "--token", "flag-token-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	if run.info.Listen != addr {
		t.Fatalf("listen %s, want the flag's %s", run.info.Listen, addr)
	}
	if got := getStatus(t, run.info.EventsURL, "flag-token-0123456789"); got != http.StatusOK {
		t.Errorf("flag token: %d", got)
	}
	if got := getStatus(t, run.info.EventsURL, "profile-token-0123456789"); got != http.StatusUnauthorized {
		t.Errorf("profile token after --token: %d, want 401", got)
	}
}

func TestRelayRefusesWeakTokensAtStart(t *testing.T) {
	tests := []struct {
		name string
		cfg  string
		env  map[string]string
		args []string
		want string
	}{
		{"spaces from the flag", "", nil, []string{"--listen", "0.0.0.0:0", "--token", "                    "}, "whitespace"},
		{"short from the environment", "", map[string]string{"PAYDASH_RELAY_TOKEN": "abc"}, []string{"--listen", "127.0.0.1:0"}, "fewer than 16"},
		{"spaces in the profile", "[profiles.dev]\nrelay_token = \"    \"\n", nil, []string{"--listen", "127.0.0.1:0"}, "relay_token"},
		// A variable named but unset must not turn the token off, even
		// on loopback and with a token in the profile.
		{"--token-env naming an unset variable", "[profiles.dev]\nrelay_token = \"profile-token-0123456789\"\n", nil,
			[]string{"--listen", "127.0.0.1:0", "--token-env", "NOPE_UNSET"}, "$NOPE_UNSET is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &cmdutil.Global{} // no profile at all
			if tc.cfg != "" {
				g.ConfigPath = writeConfig(t, tc.cfg)
			}
			_, err := startRelay(t, g, tc.env, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
				t.Fatalf("err = %v (exit %d), want a usage error saying %q", err, cmdutil.ExitCode(err), tc.want)
			}
		})
	}
}

// TestRelayTokenEnvAdviceIsSafeToFollow: the unset --token-env stops the
// relay and says to export the variable; done, the relay starts and
// requires that token.
func TestRelayTokenEnvAdviceIsSafeToFollow(t *testing.T) {
	args := []string{"--listen", "127.0.0.1:0", "--token-env", "RELAY_TOKEN_X"}
	if _, err := startRelay(t, &cmdutil.Global{}, nil, args...); err == nil || !strings.Contains(err.Error(), "export it") {
		t.Fatalf("unset --token-env: %v, want the advice to export it", err)
	}
	const token = "exported-token-0123456789"
	run, err := startRelay(t, &cmdutil.Global{}, map[string]string{"RELAY_TOKEN_X": token}, args...)
	if err != nil {
		t.Fatalf("after exporting it: %v", err)
	}
	if got := getStatus(t, run.info.EventsURL, ""); got != http.StatusUnauthorized {
		t.Errorf("/events without the token: %d, want 401", got)
	}
	if got := getStatus(t, run.info.EventsURL, token); got != http.StatusOK {
		t.Errorf("/events with the exported token: %d, want 200", got)
	}
}

// TestRelayVerboseLogsEachWebhook: -v prints one line per webhook and
// per forward, as `stripe listen` does (--> type event_id; <-- [status]
// POST url N ms); --log-format json keeps slog's structured records;
// without -v no line per webhook (errors still show).
func TestRelayVerboseLogsEachWebhook(t *testing.T) {
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer hooks.Close()
	post := func(run *relayRun) {
		t.Helper()
		for _, body := range []string{`{"type":"payout_executed","event_id":"v-1"}`, `{"type":"payout_executed","event_id":"v-1"}`, `{"no":"id"}`} {
			resp, err := http.Post(run.info.WebhookURL, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	// waitFor polls the log until want matches (the forward is async).
	waitFor := func(run *relayRun, want *regexp.Regexp) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !want.MatchString(run.log()) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}

	run, err := startRelay(t, &cmdutil.Global{}, nil, "--listen", "127.0.0.1:0", "-v", "--forward-to", hooks.URL+"/hooks")
	if err != nil {
		t.Fatal(err)
	}
	post(run)
	forwarded := regexp.MustCompile(`(?m)^<-- \[200\] POST ` + regexp.QuoteMeta(hooks.URL) + `/hooks \d+ ms \[v-1\]$`)
	waitFor(run, forwarded)
	run.stop()
	out := run.errb.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^--> payout_executed v-1$`),
		regexp.MustCompile(`(?m)^--> payout_executed v-1 \(duplicate of seq 1: answered, not stored again\)$`),
		regexp.MustCompile(`(?m)^x-- \[400\] webhook refused: no_event_id: `),
		forwarded,
	} {
		if !want.MatchString(out) {
			t.Errorf("-v: no line matching %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "level=DEBUG") || strings.Contains(out, "msg=") && strings.Contains(out, "webhook accepted") {
		t.Errorf("-v prints debug records, not one line per webhook:\n%s", out)
	}

	// A forward the endpoint refuses is one line too, saying why.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadRequest) }))
	defer refusing.Close()
	run, err = startRelay(t, &cmdutil.Global{}, nil, "--listen", "127.0.0.1:0", "-v", "--forward-to", refusing.URL+"/hooks")
	if err != nil {
		t.Fatal(err)
	}
	post(run)
	failed := regexp.MustCompile(`(?m)^<-- \[failed\] POST ` + regexp.QuoteMeta(refusing.URL) + `/hooks: .*400.*\(seq 1, attempt \d+\)$`)
	waitFor(run, failed)
	run.stop()
	if !failed.MatchString(run.errb.String()) {
		t.Errorf("-v, refused forward: no line matching %s:\n%s", failed, run.errb.String())
	}

	run, err = startRelay(t, &cmdutil.Global{}, nil, "--listen", "127.0.0.1:0", "-v", "--log-format", "json")
	if err != nil {
		t.Fatal(err)
	}
	post(run)
	run.stop()
	var accepted bool
	for _, l := range strings.Split(strings.TrimSpace(run.errb.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Errorf("--log-format json: not a JSON record: %q", l)
			continue
		}
		accepted = accepted || rec["msg"] == "webhook accepted" && rec["event_id"] == "v-1"
	}
	if !accepted {
		t.Errorf("--log-format json: no structured 'webhook accepted' record:\n%s", run.errb.String())
	}

	run, err = startRelay(t, &cmdutil.Global{}, nil, "--listen", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	post(run)
	run.stop()
	if out := run.errb.String(); strings.Contains(out, "-->") || strings.Contains(out, "webhook accepted") {
		t.Errorf("without -v: a line per webhook:\n%s", out)
	}
}

// TestRelayNoKeyWarningNamesTheFlags: without a key the relay warns that
// signatures are not checked and names the flags that fix it; passing the
// first one it names, --verify-key, silences the warning.
func TestRelayNoKeyWarningNamesTheFlags(t *testing.T) {
	const off = "signature verification is OFF"
	run, err := startRelay(t, &cmdutil.Global{ConfigPath: writeConfig(t, "")}, nil, "--listen", freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(run.info.Warnings, "\n")
	for _, want := range []string{off, "--verify-key", "--jwks-url", "--jku-allow"} {
		if !strings.Contains(warned, want) {
			t.Errorf("warnings lack %q:\n%s", want, warned)
		}
	}
	run.stop()

	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	pemKey, err := api.EncodePublicKeyPEM(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "service.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	run, err = startRelay(t, &cmdutil.Global{ConfigPath: writeConfig(t, "")}, nil, "--listen", freeAddr(t), "--verify-key", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(run.info.Warnings, "\n"); strings.Contains(w, off) {
		t.Errorf("with --verify-key the relay still warns:\n%s", w)
	}
}
