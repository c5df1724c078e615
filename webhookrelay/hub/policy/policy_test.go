package policy

import (
	"strings"
	"testing"
	"time"
)

func TestParseThresholds(t *testing.T) {
	got, err := ParseThresholds("GBP=1000.00, eur=250,JPY=0")
	if err != nil {
		t.Fatal(err)
	}
	if got["GBP"] != 100000 || got["EUR"] != 25000 || got["JPY"] != 0 || len(got) != 3 {
		t.Fatalf("ParseThresholds = %v", got)
	}
	for _, bad := range []string{"GBP", "GBP=abc", "XXX=10", "GBP=-5", "GBP=1,GBP=2", "=10", "GBP=1.001"} {
		if _, err := ParseThresholds(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDecide(t *testing.T) {
	p := Policy{Over: map[string]int64{"GBP": 100000, "EUR": 0}, Approvers: 1, TTL: time.Hour}
	for _, c := range []struct {
		name     string
		amount   int64
		currency string
		sum      int64
		want     bool
	}{
		{"below the threshold", 99999, "GBP", 0, false},
		{"at the threshold is not above it", 100000, "GBP", 0, false},
		{"above the threshold", 100001, "GBP", 0, true},
		{"zero threshold: every payout", 1, "EUR", 0, true},
		{"unlisted currency: every payout", 1, "USD", 0, true},
		{"split: the sum with this one passes", 60000, "GBP", 50000, true},
		{"the sum with this one reaches, not passes", 50000, "GBP", 50000, false},
	} {
		d := p.Decide(c.amount, c.currency, c.sum)
		if d.Needed != c.want || d.Reason == "" {
			t.Errorf("%s: Decide = %+v, want needed=%v", c.name, d, c.want)
		}
	}
	if d := p.Decide(60000, "GBP", 50000); !strings.Contains(d.Reason, "24 h") {
		t.Errorf("split reason %q does not say the sum rule", d.Reason)
	}
}

func TestRecentSumIsPerRequesterPayeeCurrencyAndDay(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	iban := "GB33BUKB20201555555555"
	sent := []Sent{
		{"ada", iban, "GBP", 100, now.Add(-time.Hour)},
		{"ada", "GB33 BUKB 2020 1555 5555 55", "GBP", 200, now.Add(-23 * time.Hour)}, // same IBAN spaced
		{"ada", iban, "GBP", 400, now.Add(-25 * time.Hour)},                          // too old
		{"bob", iban, "GBP", 800, now.Add(-time.Hour)},                               // another requester
		{"ada", "GB94BARC10201530093459", "GBP", 1600, now.Add(-time.Hour)},          // another payee
		{"ada", iban, "EUR", 3200, now.Add(-time.Hour)},                              // another currency
	}
	if got := RecentSum(sent, "ada", iban, "GBP", now); got != 300 {
		t.Fatalf("RecentSum = %d, want 300", got)
	}
}

func TestRecentSumsCountThePayeeAcrossRequesters(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	iban := "GB33BUKB20201555555555"
	sent := []Sent{
		{"ada", iban, "GBP", 100, now.Add(-time.Hour)},
		{"bob", "GB33 BUKB 2020 1555 5555 55", "GBP", 200, now.Add(-time.Hour)},
		{"cy", iban, "GBP", 400, now.Add(-25 * time.Hour)},                // too old
		{"cy", "GB94BARC10201530093459", "GBP", 800, now.Add(-time.Hour)}, // another payee
		{"cy", iban, "EUR", 1600, now.Add(-time.Hour)},                    // another currency
	}
	if got := RecentSums(sent, "ada", iban, "GBP", now); got != (Sums{Requester: 100, Payee: 300}) {
		t.Fatalf("RecentSums = %+v, want requester 100, payee 300", got)
	}
	// Three people each within 1,000.00 to one payee: the third needs
	// approval, though each person's own sum is far below.
	p := Policy{Over: map[string]int64{"GBP": 100000}, Approvers: 1, TTL: time.Hour}
	d := p.DecideSums(40000, "GBP", Sums{Requester: 0, Payee: 80000})
	if !d.Needed || !strings.Contains(d.Reason, "by everyone") {
		t.Fatalf("third requester's 400.00 after 800.00 by others: %+v", d)
	}
	if d := p.DecideSums(20000, "GBP", Sums{Payee: 80000}); d.Needed {
		t.Fatalf("reaching the threshold is not passing it: %+v", d)
	}
}

func TestCheckApproversAndValidate(t *testing.T) {
	if err := CheckApprovers(2, []string{"ada"}); err == nil || !strings.Contains(err.Error(), "user add") {
		t.Fatalf("CheckApprovers(2, one) = %v", err)
	}
	if err := CheckApprovers(2, []string{"ada", "bob"}); err != nil {
		t.Fatal(err)
	}
	if err := (Policy{Approvers: 0, TTL: time.Hour}).Validate(); err == nil {
		t.Fatal("0 approvers accepted")
	}
	if err := (Policy{Approvers: 1}).Validate(); err == nil {
		t.Fatal("no ttl accepted")
	}
	p := Policy{Approvers: 1, TTL: time.Hour}
	t0 := time.Unix(0, 0)
	if p.Expired(t0, t0.Add(59*time.Minute)) || !p.Expired(t0, t0.Add(time.Hour)) {
		t.Fatal("Expired wrong at the edge")
	}
}
