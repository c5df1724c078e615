package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/freeport"
)

// TestMain lets the scripts under testdata/script run the real paydash
// command: testscript installs this test binary as `paydash` on the
// scripts' PATH, and running it under that name runs main's run.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"paydash": func() { os.Exit(run(context.Background(), os.Args[1:], cmdutil.System())) },
	})
}

// TestScripts runs testdata/script/*.txtar: each a command line a user
// types (most of them exactly as the README writes them) and what it must
// print and exit with. Each script gets its own sandbox on loopback,
// served from this process, and a profile pointing at it through
// PAYDASH_* variables; HOME and the XDG directories are under the
// script's work directory.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup:               scriptSandbox,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"waitfile": waitFile, "exits": exits, "freeport": freePort, "webhooks": webhooks,
		},
	})
}

// waitFile is the script command `waitfile PATH [REGEXP]`: wait (at
// most 30 s) for a file a background command writes, such as a demo's
// config, and for a line of it to match REGEXP when given.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile PATH [REGEXP]")
	}
	path := ts.MkAbs(args[0])
	var re *regexp.Regexp
	if len(args) == 2 {
		re = regexp.MustCompile("(?m)" + args[1])
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && (re == nil || re.Match(b)) {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			ts.Fatalf("%s did not appear (or match %v) within 30s:\n%s", path, re, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort is the script command `freeport VAR`: set $VAR to a loopback
// port nothing listens on, for a server the script starts.
func freePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	addr, err := freeport.Pick()
	ts.Check(err)
	_, port, err := net.SplitHostPort(addr)
	ts.Check(err)
	ts.Setenv(args[0], port)
}

// webhooks is the script command `webhooks URL`: the script's sandbox
// posts its webhooks to URL (a relay the script started).
func webhooks(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webhooks URL")
	}
	ts.Value(sandboxKey{}).(*sandbox.Server).SetWebhookURI(args[0])
}

// sandboxKey holds the script's sandbox in its Values.
type sandboxKey struct{}

func scriptSandbox(env *testscript.Env) error {
	key, err := api.GenerateSigningKey()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{
		MerchantKey: &key.PublicKey, ClientSecret: "script-secret", History: 300, HistorySeed: 7,
	})
	if err != nil {
		cancel()
		return err
	}
	env.Defer(func() { _ = srv.Close(); cancel() })
	env.Values[sandboxKey{}] = srv
	pemKey, err := api.EncodePrivateKeyPEM(key)
	if err != nil {
		return err
	}
	keyFile := filepath.Join(env.WorkDir, ".signing-key.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		return err
	}
	info := srv.Info()
	for k, v := range map[string]string{
		"HOME":            filepath.Join(env.WorkDir, "home"),
		"XDG_CONFIG_HOME": filepath.Join(env.WorkDir, "config"),
		"XDG_STATE_HOME":  filepath.Join(env.WorkDir, "state"),
		// The profile, as a user writes it in PAYDASH_* variables.
		"PAYDASH_AUTH_URL": info.AuthURL, "PAYDASH_BASE_URL": info.BaseURL, "PAYDASH_PAYOUTS_URL": info.PayoutsURL,
		"PAYDASH_CLIENT_ID": info.ClientID, "PAYDASH_CLIENT_SECRET": "script-secret",
		"PAYDASH_SIGNING_KEY_ID": "k1", "PAYDASH_SIGNING_KEY_FILE": keyFile,
		"PAYDASH_MERCHANT_ACCOUNTS": "GBP=" + sandbox.MerchantAccountGBP + ",EUR=" + sandbox.MerchantAccountEUR,
		"SANDBOX_CONTROL":           info.ControlURL,
		"SANDBOX_JWKS":              info.JWKSURL,
	} {
		env.Setenv(k, v)
	}
	return nil
}

// exits is the script command `exits N PROGRAM ARGS...`: run it as exec
// does (its stdout and stderr are then what stdout and stderr match) and
// require exit status N, since scripts rely on each status's meaning.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
