package demo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TestStartWiresEverythingAndCloseLeavesNothing: a payout through the
// demo's client reaches the relay's stream as webhooks, the generated
// profile works for other commands, secrets are private, and Close stops
// every listener.
func TestStartWiresEverythingAndCloseLeavesNothing(t *testing.T) {
	state := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "XDG_STATE_HOME":
			return state
		case "HOME":
			return t.TempDir()
		}
		return ""
	}
	ports := filepath.Join(t.TempDir(), "ports.json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env, err := Start(ctx, getenv, &Options{History: 50, Seed: 3, StepDelay: 0, Listen: "127.0.0.1:0", RelayListen: "127.0.0.1:0", PortsFile: ports})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()

	for _, f := range []string{SigningKeyFile, SecretFile, ConfigFile} {
		st, err := os.Stat(filepath.Join(state, "paydash", "demo", f))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	// The written profile is a working profile.
	p, _, err := config.Load(config.LoadOptions{Path: env.ConfigPath(), Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.APIConfig()
	if err != nil || cfg.SigningKey == nil || p.RelayURL != env.RelayURL {
		t.Fatalf("demo profile: %v (relay %q vs %q)", err, p.RelayURL, env.RelayURL)
	}
	if p.MerchantAccounts["GBP"] != sandbox.MerchantAccountGBP || p.MerchantAccounts["EUR"] != sandbox.MerchantAccountEUR {
		t.Errorf("demo profile's merchant accounts %v, want the sandbox's", p.MerchantAccounts)
	}
	profClient, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profClient.Balances(ctx); err != nil {
		t.Fatalf("the written profile cannot read balances: %v", err)
	}

	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: env.RelayURL})
	subCtx, stopSub := context.WithCancel(ctx)
	subDone := make(chan struct{})
	go func() { defer close(subDone); _ = sub.Run(subCtx) }()
	id := uuid.NewString()
	if err := env.Client.CreatePayout(ctx, &api.PayoutRequest{TransactionID: id, BeneficiaryName: "Ada Lovelace",
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "T-1", Currency: "GBP", AmountInMinor: 1234, ContextCode: "withdrawal"}); err != nil {
		t.Fatal(err)
	}
	var states []string
	for len(states) < 3 {
		select {
		case ev := <-sub.Events():
			if ev.PayoutID == id {
				states = append(states, ev.State)
			}
		case <-ctx.Done():
			t.Fatalf("webhooks did not reach the relay's stream; saw %v", states)
		}
	}
	if states[0] != api.StateAuthorised || states[2] != api.StateSettled {
		t.Errorf("states %v, want authorised, submitted, settled", states)
	}
	stopSub()
	<-subDone

	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{env.Ports.Sandbox, env.Ports.Relay} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still listening after Close", addr)
		}
	}
	if err := env.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestSecondDemoRefusesAndLeavesTheFirstIntact: a person starts a demo,
// then `paydash demo` again in another terminal. The second refuses,
// naming the running one and how to use it; the first keeps its profile,
// its audit record and its relay store. Once the first stops, a demo
// starts again.
func TestSecondDemoRefusesAndLeavesTheFirstIntact(t *testing.T) {
	state := t.TempDir()
	home := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "XDG_STATE_HOME":
			return state
		case "HOME":
			return home
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := func() *Options {
		return &Options{History: 20, Seed: 3, StepDelay: 0, Listen: "127.0.0.1:0", RelayListen: "127.0.0.1:0"}
	}
	a, err := Start(ctx, getenv, opts())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// A payout recorded in the first demo's audit record.
	rec := payout.DefaultPath(config.StateDir(getenv), ProfileName)
	log, err := payout.Open(rec, ProfileName, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.Reserve(ctx, payout.Entry{Source: payout.SourceCreate, TransactionID: uuid.NewString(), Name: "Ada",
		IBAN: "GB33BUKB20201555555555", Reference: "DEMO-A", AmountInMinor: 100, Currency: "GBP"}, payout.DefaultWindow, false); err != nil {
		t.Fatal(err)
	}
	cfgBefore, err := os.ReadFile(a.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}

	b, err := Start(ctx, getenv, opts())
	if err == nil {
		b.Close()
		t.Fatal("a second demo started while the first runs")
	}
	if !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), "paydash --config "+a.ConfigPath()) {
		t.Errorf("the refusal does not say a demo runs and how to use it: %v", err)
	}
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("exit %d, want %d", cmdutil.ExitCode(err), cmdutil.ExitUsage)
	}
	// Another terminal with no profile is told how to use the running
	// demo (not to start one, which would be refused); followed
	// literally, `paydash --config X balances` reads the demo's accounts.
	var errOut bytes.Buffer
	s := &cmdutil.Streams{Out: io.Discard, Err: &errOut, Getenv: getenv}
	if _, err := cmdutil.LoadProfile(s, &cmdutil.Global{}); !errors.Is(err, cmdutil.ErrNoProfile) {
		t.Fatalf("no profile while a demo runs: %v", err)
	}
	hint := "paydash --config " + a.ConfigPath() + " <command>"
	if !strings.Contains(errOut.String(), hint) || strings.Contains(errOut.String(), "      paydash demo\n") {
		t.Fatalf("no-profile hint while a demo runs:\n%s", errOut.String())
	}
	if _, client, err := cmdutil.Setup(s, &cmdutil.Global{ConfigPath: a.ConfigPath()}); err != nil {
		t.Fatalf("following the hint: %v", err)
	} else if bals, err := client.Balances(ctx); err != nil || len(bals) == 0 {
		t.Fatalf("balances through the hint's --config: %v, %v", bals, err)
	}
	if cfgAfter, _ := os.ReadFile(a.ConfigPath()); string(cfgAfter) != string(cfgBefore) {
		t.Errorf("the first demo's profile was rewritten:\n%s", cfgAfter)
	}
	entries, err := log.Entries()
	if err != nil || len(payout.Attempts(entries)) != 1 {
		t.Errorf("the first demo's audit record lost its payout: %d attempt(s), %v", len(payout.Attempts(entries)), err)
	}
	if _, err := os.Stat(filepath.Join(a.Dir, RelayStoreFile)); err != nil {
		t.Errorf("the first demo's relay store: %v", err)
	}
	if _, err := a.Client.Balances(ctx); err != nil {
		t.Errorf("the first demo stopped answering: %v", err)
	}

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Start(ctx, getenv, opts())
	if err != nil {
		t.Fatalf("a demo after the first stopped: %v", err)
	}
	c.Close()
}
