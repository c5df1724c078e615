package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyAndSecretAreCreatedPrivateAndReused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "demo")
	keyPath := filepath.Join(dir, "signing-key.pem")
	key, created, err := LoadOrCreateKey(keyPath)
	if err != nil || !created {
		t.Fatalf("first call: created=%v err=%v", created, err)
	}
	again, created, err := LoadOrCreateKey(keyPath)
	if err != nil || created || !again.Equal(key) {
		t.Fatalf("second call must reuse the key: created=%v err=%v", created, err)
	}
	secretPath := filepath.Join(dir, "client-secret")
	s1, err := LoadOrCreateSecret(secretPath, "demo_")
	if err != nil || !strings.HasPrefix(s1, "demo_") || len(s1) < 30 {
		t.Fatalf("secret %q, %v", s1, err)
	}
	s2, err := LoadOrCreateSecret(secretPath, "demo_")
	if err != nil || s2 != s1 {
		t.Fatalf("secret not reused: %q vs %q (%v)", s1, s2, err)
	}
	for _, p := range []string{keyPath, secretPath} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", st.Mode().Perm())
	}
	if err := os.WriteFile(keyPath, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateKey(keyPath); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a damaged key must be reported, not replaced silently: %v", err)
	}
	// Follow the advice: remove it, and the next start makes a new key.
	if err := os.Remove(keyPath); err != nil {
		t.Fatal(err)
	}
	fresh, created, err := LoadOrCreateKey(keyPath)
	if err != nil || !created || fresh == nil || fresh.Equal(key) {
		t.Fatalf("after removing the damaged key: created=%v err=%v", created, err)
	}
	if again, _, err := LoadOrCreateKey(keyPath); err != nil || !again.Equal(fresh) {
		t.Fatalf("the new key is not kept: %v", err)
	}
}
