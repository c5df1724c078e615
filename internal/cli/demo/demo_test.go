package demo

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
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
