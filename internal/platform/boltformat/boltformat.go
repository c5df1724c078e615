// Package boltformat is how paydash's bbolt stores (the relay's events,
// the hub's approvals) name their format: a key in their meta bucket. A
// store without it is format 1, from before store versions; before such a
// store is migrated in place its opener keeps a copy of it beside it
// (path + ".format1.bak"); a store of a newer format than this paydash
// reads is refused, naming it, rather than misread.
//
// It imports nothing of paydash.
package boltformat

import (
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// Spec says where a store keeps its format and which it is now.
type Spec struct {
	What    string // "relay store": how errors name the store
	Current int    // the format this paydash writes
	Data    []byte // a bucket that holds something once the store is used
	Meta    []byte // the bucket the format is kept in
	Key     []byte // its key there
}

// Check refuses a store of a newer format than s.Current and, before a
// format 1 store that holds data is migrated, keeps a copy of it.
func Check(db *bolt.DB, path string, s Spec) error {
	var format int
	var held bool
	err := db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(s.Data); b != nil {
			k, _ := b.Cursor().First()
			held = k != nil
		}
		if meta := tx.Bucket(s.Meta); meta != nil {
			if v := meta.Get(s.Key); v != nil {
				n, err := strconv.Atoi(string(v))
				if err != nil {
					return fmt.Errorf("its format %q is not a number", v)
				}
				format = n
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w", s.What, path, err)
	}
	switch {
	case format > s.Current:
		return fmt.Errorf("%s %s is format %d, written by a newer paydash; this one reads formats 1 to %d: run the paydash that wrote it, or a newer one", s.What, path, format, s.Current)
	case format == 0 && held:
		backup := path + ".format1.bak"
		if err := db.View(func(tx *bolt.Tx) error { return tx.CopyFile(backup, 0o600) }); err != nil {
			return fmt.Errorf("%s %s is format 1; keeping a copy at %s before migrating it failed: %w", s.What, path, backup, err)
		}
	}
	return nil
}

// Put records s.Current in the store's meta bucket (created by the
// caller), once the store has been migrated to it in tx.
func Put(tx *bolt.Tx, s Spec) error {
	return tx.Bucket(s.Meta).Put(s.Key, []byte(strconv.Itoa(s.Current)))
}
