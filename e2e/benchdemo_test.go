package e2e

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
)

// benchDemo is a `paydash demo --headless` the benchmarks measure
// against: its addresses and the demo profile's config file.
type benchDemo struct {
	Sandbox, Relay string
	cfg            string
	pid            int
}

// startBenchDemo runs `paydash demo --headless ARGS --ports-file …`,
// pinned to core when pinned (onCore), output dropped, and waits up to
// timeout for it to write its addresses. The process is killed when tb
// ends.
func startBenchDemo(tb testing.TB, env []string, pinned bool, core string, timeout time.Duration, args ...string) benchDemo {
	tb.Helper()
	ports := filepath.Join(tb.TempDir(), "ports.json")
	demo := onCore(pinned, core, append(append([]string{bin, "demo", "--headless"}, args...), "--ports-file", ports)...)
	demo.Env = env
	demo.Stdout, demo.Stderr = io.Discard, io.Discard
	if err := demo.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = demo.Process.Kill(); _ = demo.Wait() })
	d := benchDemo{cfg: filepath.Join(envValue(env, "XDG_STATE_HOME"), "paydash", "demo", "config.toml"), pid: demo.Process.Pid}
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		if raw, err := os.ReadFile(ports); err == nil && json.Unmarshal(raw, &d) == nil && d.Relay != "" {
			return d
		}
		if time.Now().After(deadline) {
			tb.Fatal("the demo did not come up")
		}
	}
}

// api is the demo profile as a client of the demo's sandbox: the
// profile, its API configuration and a client on it.
func (d benchDemo) api(tb testing.TB, env []string) (*config.Profile, api.Config, *api.Client) {
	tb.Helper()
	prof, _, err := config.Load(config.LoadOptions{Path: d.cfg, Getenv: func(k string) string { return envValue(env, k) }})
	if err != nil {
		tb.Fatal(err)
	}
	acfg, err := prof.APIConfig()
	if err != nil {
		tb.Fatal(err)
	}
	client, err := api.NewClient(acfg)
	if err != nil {
		tb.Fatal(err)
	}
	return prof, acfg, client
}
