package serve

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/paydash/paydash/api"
)

// WritePrivate writes data to path readable by the owner only (0600),
// creating the directory (0700). It replaces the file atomically, so a
// crash never leaves half a key behind.
func WritePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// LoadOrCreateKey reads the P-521 private key at path, or generates one
// and writes it there (0600). created reports which.
func LoadOrCreateKey(path string) (key *ecdsa.PrivateKey, created bool, err error) {
	data, err := os.ReadFile(path) //nolint:gosec // the key file under the state directory or the one the user named
	switch {
	case err == nil:
		key, err := api.ParsePrivateKeyPEM(data)
		if err != nil {
			return nil, false, fmt.Errorf("%s is not a usable P-521 signing key (%w); remove it and a new one is generated", path, err)
		}
		return key, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, fmt.Errorf("read signing key: %w", err)
	}
	key, err = api.GenerateSigningKey()
	if err != nil {
		return nil, false, fmt.Errorf("generate signing key: %w", err)
	}
	pemData, err := api.EncodePrivateKeyPEM(key)
	if err != nil {
		return nil, false, fmt.Errorf("encode signing key: %w", err)
	}
	if err := WritePrivate(path, pemData); err != nil {
		return nil, false, err
	}
	return key, true, nil
}

// LoadOrCreateSecret reads the secret at path, or makes a random one with
// prefix and writes it there (0600).
func LoadOrCreateSecret(path, prefix string) (string, error) {
	data, err := os.ReadFile(path) //nolint:gosec // a secret file under the state directory
	if err == nil {
		if s := strings.TrimSpace(string(data)); s != "" {
			return s, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read secret: %w", err)
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	secret := prefix + base64.RawURLEncoding.EncodeToString(b)
	if err := WritePrivate(path, []byte(secret+"\n")); err != nil {
		return "", err
	}
	return secret, nil
}
