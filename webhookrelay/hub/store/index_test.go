package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ids lists the requests' ids.
func ids(rs []Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// The live list holds exactly the requests still live, whatever the store
// held before; the window list exactly those made within it: the hub's
// routine reads see finished history neither more nor less than before
// they were indexed, and a change of status moves a request out of (or
// back into) the live list at once.
func TestLiveAndRecentListsFollowStatusAndTime(t *testing.T) {
	s := openStore(t)
	old := Request{ID: NewID(), Status: StatusApproved, RequestedBy: "ada", RequestedAt: t0.Add(-30 * time.Hour),
		AmountInMinor: 100, Currency: "GBP", TransactionID: "tx-" + NewID()}
	if err := s.Create(&old); err != nil {
		t.Fatal(err)
	}
	p := pending(t, s, "ada", 200)
	sent := pending(t, s, "ada", 300)
	if _, _, err := s.Approve(sent.ID, "bob", t0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(sent.ID, "hub", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(sent.ID, StatusSent, "accepted", "ok", t0); err != nil {
		t.Fatal(err)
	}
	rej := pending(t, s, "ada", 400)
	if _, err := s.Reject(rej.ID, "bob", "no", t0); err != nil {
		t.Fatal(err)
	}
	live, err := s.ListLive(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(live), []string{old.ID, p.ID}; !slices.Equal(got, want) {
		t.Fatalf("live: %v, want %v (the old approved one and the pending one)", got, want)
	}
	out, err := s.Outflows("")
	if err != nil || out["GBP"] != 300 {
		t.Fatalf("outflows %v (%v), want GBP 300 from the two open requests", out, err)
	}
	recent, err := s.ListSince(t0.Add(-24*time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	recent2 := ids(recent)
	slices.Sort(recent2)
	want := []string{p.ID, sent.ID, rej.ID}
	slices.Sort(want)
	if !slices.Equal(recent2, want) {
		t.Fatalf("made within 24 h: %v, want %v (finished ones included, the 30-hour-old one not)", recent2, want)
	}
	// Lapse reads the live ones: the pending request lapses and leaves
	// the live list.
	lapsed, err := s.Lapse(t0.Add(25 * time.Hour))
	if err != nil || len(lapsed) != 1 || lapsed[0].ID != p.ID {
		t.Fatalf("lapsed %v (%v), want %s", ids(lapsed), err, p.ID)
	}
	if live, _ = s.ListLive(nil); !slices.Equal(ids(live), []string{old.ID}) {
		t.Fatalf("live after the lapse: %v, want only %s", ids(live), old.ID)
	}
	all, err := s.List(nil)
	if err != nil || len(all) != 4 {
		t.Fatalf("all: %d requests (%v), want 4", len(all), err)
	}
}

// A file written before the indexes existed is indexed when first
// opened: its live requests are listed, its finished ones are not.
func TestAFileWrittenBeforeTheIndexesIsIndexedAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.db")
	s := openStoreAt(t, path)
	p := pending(t, s, "ada", 200)
	rej := pending(t, s, "ada", 400)
	if _, err := s.Reject(rej.ID, "bob", "no", t0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Undo the indexes, as a file of an earlier paydash has none.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketLive, bucketByTime, bucketMeta} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s = openStoreAt(t, path)
	live, err := s.ListLive(nil)
	if err != nil || !slices.Equal(ids(live), []string{p.ID}) {
		t.Fatalf("live after indexing: %v (%v), want %s", ids(live), err, p.ID)
	}
	recent, err := s.ListSince(t0.Add(-time.Hour), nil)
	if err != nil || len(recent) != 2 {
		t.Fatalf("made since an hour before: %v (%v), want both", ids(recent), err)
	}
	// A copy of the file as it was is kept beside it (format 1).
	if _, err := os.Stat(path + ".format1.bak"); err != nil {
		t.Fatalf("no copy kept before migrating a format 1 store: %v", err)
	}
}

// A store written by a newer paydash is refused, naming its format.
func TestAnApprovalsStoreOfANewerFormatIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.db")
	s := openStoreAt(t, path)
	s.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(storeFormat.Key, []byte("7")) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "format 7") || !strings.Contains(err.Error(), "newer paydash") {
		t.Fatalf("Open = %v, want a refusal naming format 7", err)
	}
}
