package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"testing"

	"github.com/paydash/paydash/api"
)

// TestHistoryReportUnchanged pins the seeded report byte for byte: the
// hashes were taken from the sandbox that held its whole history in
// memory (before the history became generated on demand), so the same
// seed still gives the same report, filtered or not, and the same
// balances.
func TestHistoryReportUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.History = 30_000; o.HistorySeed = 11; o.WebhookURI = "" })
	tok := e.token(api.ScopePayouts)
	for _, c := range []struct{ query, want string }{
		{"", goldenFull},
		{"from=2025-02-01T00:00:00Z&to=2025-02-20", goldenRange},
		{"currency=EUR&type=funding", goldenEURFunding},
		{"from=2025-03-14T08:00:00Z", goldenTail},
	} {
		q, _ := url.ParseQuery(c.query)
		r := e.do("GET", "/v1/transactions?"+q.Encode(), http.Header{"Authorization": {"Bearer " + tok}}, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", c.query, r.status, r.body)
		}
		sum := sha256.Sum256(r.body)
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("report %q: sha256 %s (%d bytes), want %s", c.query, got, len(r.body), c.want)
		}
	}
	gbp, eur := e.balance("GBP"), e.balance("EUR")
	if gbp.CurrentBalanceInMinor != goldenGBP || eur.CurrentBalanceInMinor != goldenEUR ||
		gbp.AvailableBalanceInMinor != goldenGBP || eur.AvailableBalanceInMinor != goldenEUR {
		t.Errorf("balances GBP %d/%d EUR %d/%d, want %d and %d", gbp.CurrentBalanceInMinor, gbp.AvailableBalanceInMinor,
			eur.CurrentBalanceInMinor, eur.AvailableBalanceInMinor, goldenGBP, goldenEUR)
	}
}

const (
	goldenFull       = "d56bd65656491a22ebee7566c538b0f440b27998a9437d6430ccbf4731598374"
	goldenRange      = "fb3208b2b99d4b1013d75d0264b4c5315fa165e003cb50af81c7dca08dff4cb5"
	goldenEURFunding = "7637ef617867f012538c744030c422c00c47b56eca922410fb4c2aa493d175a1"
	goldenTail       = "d8baacd5fa96776a6f0b8eb02a178818a41e0f9eaccf205c577811d9654a0582"
	goldenGBP        = 2981951224
	goldenEUR        = 1505386506
)

// TestHistoryOnDemand: the history is not held (the ledger keeps no
// record of it), a report from a late time starts at the nearest mark and
// still gives every record from then on, and a payout reusing a seeded
// transaction id is a duplicate, as it was when the records were held.
func TestHistoryOnDemand(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.History = 20_000; o.HistorySeed = 3; o.WebhookURI = "" })
	l := e.srv.ledger
	if n := len(l.txns); n != 0 {
		t.Fatalf("ledger holds %d records before any live one", n)
	}
	all := generateHistory(l.hist.o, testStart, []*account{{MerchantAccount: accountDefs()[0]}, {MerchantAccount: accountDefs()[1]}})
	from := all[len(all)-300].booked()
	var tail []txn
	l.hist.each(from, maxTime, func(t *txn) bool { tail = append(tail, *t); return true })
	var want []txn
	for _, x := range all {
		if x.booked() >= from {
			want = append(want, x)
		}
	}
	if len(tail) != len(want) || tail[0] != want[0] || tail[len(tail)-1] != want[len(want)-1] {
		t.Fatalf("from the mark: %d records, want %d", len(tail), len(want))
	}
	seeded := all[12_345]
	p := payout("GBP", 1_00)
	p.TransactionID = seeded.id
	if err := e.client.CreatePayout(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(l.txns) != 0 || l.size() != len(all) {
		t.Fatalf("a payout reusing seeded id %s was booked (%d live records)", seeded.id, len(l.txns))
	}
}
