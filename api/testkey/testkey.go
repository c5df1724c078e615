// Package testkey gives tests the repository's fixed P-521 signing key,
// testdata/test-signing-key.pem, so every package signs and verifies with
// one known key. It uses only the standard library, so api's own tests can
// import it without a cycle.
package testkey

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Path is the absolute path of the key file, wherever the test runs from.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "test-signing-key.pem")
}

var (
	once sync.Once
	key  *ecdsa.PrivateKey
	err  error
)

// Load returns the fixed key, failing the test if it cannot be read.
func Load(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	once.Do(func() {
		var data []byte
		if data, err = os.ReadFile(Path()); err != nil {
			return
		}
		block, _ := pem.Decode(data)
		if block == nil {
			err = os.ErrInvalid
			return
		}
		var k any
		if k, err = x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
			key, _ = k.(*ecdsa.PrivateKey)
		}
	})
	if err != nil || key == nil {
		t.Fatalf("load the test signing key %s: %v", Path(), err)
	}
	return key
}
