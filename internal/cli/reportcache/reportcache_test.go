package reportcache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
)

type rows []api.Transaction

func (r rows) StreamTransactions(_ context.Context, _ api.TransactionQuery, fn func(api.Transaction) error) error {
	for _, t := range r {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// status says where the cache is and what it holds (or that it belongs
// to another service), and clear removes it.
func TestStatusAndClear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", cache.FileName)
	key := cache.Key{Profile: "p", ServiceURL: "http://svc.test"}
	var out bytes.Buffer
	if err := Status(&out, path, key, true, false); err != nil || !strings.Contains(out.String(), "no cache yet") {
		t.Fatalf("status with none: %v\n%s", err, out.String())
	}
	at := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	src := rows{{TransactionID: "t1", Type: api.TransactionPayout, AuthorisedAt: api.NewReportTime(at), AmountInMinor: 1_00, Currency: "GBP", Status: api.StateSettled}}
	st, _, err := report.New(0).Append(context.Background(), src, api.TransactionQuery{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := cache.Held{Store: st, Ranges: cache.Ranges{{To: at, Fetched: at}}}
	if _, err := cache.Save(context.Background(), cache.New(path, key), h, nil, report.SortKey{}, at); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Status(&out, path, key, true, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"for profile p on http://svc.test", "1 rows", "holds the whole history", "the beginning to 2025-03-01T09:00:00Z"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("status lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := Status(&out, path, cache.Key{Profile: "p", ServiceURL: "http://other.test"}, true, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"usable": false`) || !strings.Contains(out.String(), "another profile or service") {
		t.Fatalf("status of a foreign cache:\n%s", out.String())
	}
	out.Reset()
	if err := Clear(&out, path, key, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) || !strings.Contains(out.String(), "removed") {
		t.Fatalf("after clear: %v\n%s", err, out.String())
	}
}
