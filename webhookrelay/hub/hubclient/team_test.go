package hubclient

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// fakeHub answers the hub's outflows and audit paths as a hub does, or
// fails every call with status when status is not 0.
func fakeHub(t *testing.T, status int) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ada-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/hub/v1/outflows":
			_, _ = w.Write([]byte(`{"gbp": 150000}`))
		case "/hub/v1/audit":
			_, _ = w.Write([]byte(`{"profile":"hub-send","results":[{"event":"attempt","profile":"hub-send","transaction_id":"tx-1","amount_in_minor":500,"currency":"GBP"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return &Client{BaseURL: srv.URL, Token: "ada-token"}
}

// balances is the service's balances, fixed.
type balances []api.Balance

func (b balances) Balances(context.Context) ([]api.Balance, error) {
	return append([]api.Balance(nil), b...), nil
}

func (b balances) StreamTransactions(context.Context, api.TransactionQuery, func(api.Transaction) error) error {
	return nil
}

var service = balances{
	{Currency: "GBP", CurrentBalanceInMinor: 500000, AvailableBalanceInMinor: 400000},
	{Currency: "EUR", CurrentBalanceInMinor: 700000, AvailableBalanceInMinor: 700000},
}

func TestHeldBalancesCountWhatTheHubHoldsBack(t *testing.T) {
	var warn bytes.Buffer
	h := &HeldBalances{Service: service, Hub: fakeHub(t, 0), Warn: &warn}
	bs, err := h.Balances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The hub names currencies in any case; GBP's held 1,500.00 is not
	// available, EUR holds nothing back.
	if bs[0].AvailableBalanceInMinor != 250000 || bs[0].CurrentBalanceInMinor != 500000 || bs[1].AvailableBalanceInMinor != 700000 {
		t.Fatalf("held balances: %+v", bs)
	}
	if warn.Len() != 0 {
		t.Fatalf("warned with the hub answering: %q", warn.String())
	}
}

func TestHeldBalancesWithoutTheHubSayTheyDoNotCountIt(t *testing.T) {
	var warn bytes.Buffer
	h := &HeldBalances{Service: service, Hub: fakeHub(t, http.StatusBadGateway), Warn: &warn}
	bs, err := h.Balances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if bs[0].AvailableBalanceInMinor != 400000 {
		t.Fatalf("balances without the hub: %+v", bs)
	}
	if !strings.Contains(warn.String(), "do not count payouts awaiting approval on the hub") {
		t.Fatalf("warning: %q", warn.String())
	}
}

func TestTeamBackendRefusesAPayoutAroundTheHub(t *testing.T) {
	b := NewTeamBackend(fakeHub(t, 0), service, &bytes.Buffer{})
	err := b.CreatePayout(context.Background(), &api.PayoutRequest{TransactionID: "tx-2"})
	if !errors.Is(err, api.ErrNotSent) || !errors.Is(err, ErrFormNotThroughHub) {
		t.Fatalf("payout around the hub: %v", err)
	}
	bs, err := b.Balances(context.Background())
	if err != nil || bs[0].AvailableBalanceInMinor != 250000 {
		t.Fatalf("team backend's balances are not the held ones: %+v %v", bs, err)
	}
}

func TestAuditRecordSaysItIsTheHubs(t *testing.T) {
	hc := fakeHub(t, 0)
	r, err := hc.AuditRecord(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	es, _ := r.Entries()
	if r.Profile() != "hub-send" || r.Path() != "the team's hub at "+hc.BaseURL || len(es) != 1 || es[0].TransactionID != "tx-1" {
		t.Fatalf("audit record: %q %q %+v", r.Profile(), r.Path(), es)
	}
	if _, err := fakeHub(t, http.StatusForbidden).AuditRecord(context.Background()); err == nil {
		t.Fatal("a refused audit read gave a record")
	}
}
