package webhookrelay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// writeFormat1Store writes a store as paydash wrote it before store
// versions, ids and the dedupe order: the events and ids buckets only.
func writeFormat1Store(t *testing.T, path string, n int) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketEvents, bucketIDs, bucketIDOrder} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		for i := range n {
			e := &Event{EventID: "ev-" + string(rune('a'+i)), Family: "payments", Type: "payout_executed", ReceivedAt: time.Date(2026, 11, 1, 0, 0, i, 0, time.UTC), Body: []byte(`{"type":"payout_executed"}`)}
			rec, err := encodeRecord(e)
			if err != nil {
				return err
			}
			if _, err := insert(tx, e, rec); err != nil {
				return err
			}
		}
		return tx.DeleteBucket(bucketIDOrder) // not kept before format 2
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A store of the previous format is migrated in place when the relay
// opens it: a copy is kept beside it first, every event is still there,
// and the store names its format from then on.
func TestRelayStoreOfFormat1IsMigratedWithABackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.db")
	writeFormat1Store(t, path, 3)
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	if _, err := st.scanRaw(0, func(_ uint64, rec []byte) (bool, error) {
		e, err := decodeRecord(rec)
		seen = append(seen, e.EventID)
		return true, err
	}); err != nil {
		t.Fatal(err)
	}
	var format string
	_ = st.db.View(func(tx *bolt.Tx) error { format = string(tx.Bucket(bucketMeta).Get(storeFormat.Key)); return nil })
	st.close()
	if strings.Join(seen, ",") != "ev-a,ev-b,ev-c" || format != "2" || st.id == "" {
		t.Fatalf("after migration: events %v, format %q, store id %q", seen, format, st.id)
	}
	backup, err := bolt.Open(path+".format1.bak", 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("no copy kept before migrating: %v", err)
	}
	defer backup.Close()
	_ = backup.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta) != nil || tx.Bucket(bucketEvents).Stats().KeyN != 3 {
			t.Error("the copy is not the store as it was")
		}
		return nil
	})
	// Opened again, nothing more is copied or changed.
	if err := os.Remove(path + ".format1.bak"); err != nil {
		t.Fatal(err)
	}
	st, err = openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	st.close()
	if _, err := os.Stat(path + ".format1.bak"); !os.IsNotExist(err) {
		t.Fatal("a format 2 store was copied again")
	}
}

// A store written by a newer paydash is refused, naming its format.
func TestRelayStoreOfANewerFormatIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.db")
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(storeFormat.Key, []byte("9")) })
	st.close()
	_, err = openStore(path)
	if err == nil || !strings.Contains(err.Error(), "format 9") || !strings.Contains(err.Error(), "newer paydash") {
		t.Fatalf("openStore = %v, want a refusal naming format 9", err)
	}
}
