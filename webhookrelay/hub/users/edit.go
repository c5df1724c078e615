package users

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/gofrs/flock"
)

// tokenBytes of randomness make a 43-character token (base64url).
const tokenBytes = 32

// NewToken makes a random token: 32 bytes from crypto/rand, base64url
// without padding (43 characters, no character a header or a shell mangles).
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// HashToken is what the file stores for a token: its SHA-256 in hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ParseRoles reads "request,approve" into roles, refusing unknown ones.
func ParseRoles(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		for r := range strings.SplitSeq(item, ",") {
			r = strings.ToLower(strings.TrimSpace(r))
			if r == "" {
				continue
			}
			if !slices.Contains(AllRoles, r) {
				return nil, fmt.Errorf("unknown role %q; roles are %s", r, strings.Join(AllRoles, ", "))
			}
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("give at least one role (--role %s)", strings.Join(AllRoles, ","))
	}
	return out, nil
}

// Add appends a user with a new token to the file at path (created 0600
// when missing) and returns the token, which exists nowhere else: the
// caller prints it once. Comments and layout of the file are kept.
func Add(path, name string, roles []string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	if len(roles) == 0 {
		return "", errors.New("give the user at least one role")
	}
	unlock, err := lockFile(path)
	if err != nil {
		return "", err
	}
	defer unlock()
	old, err := os.ReadFile(path) //nolint:gosec // the file the administrator named
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("users file: %w", err)
	}
	d, err := Parse(path, old)
	if err != nil {
		return "", err
	}
	for _, u := range d.users {
		if u.Name == name {
			return "", fmt.Errorf("users file %s already has %q; to give them a new token: paydash relay user rotate %s --users %s", path, name, name, path)
		}
	}
	token, err := NewToken()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		b.WriteByte('\n')
	}
	if len(old) > 0 {
		b.WriteByte('\n')
	}
	if err := toml.NewEncoder(&b).Encode(file{User: []Entry{{Name: name, TokenSHA256: HashToken(token), Roles: roles}}}); err != nil {
		return "", fmt.Errorf("users file: %w", err)
	}
	if _, err := Parse(path, b.Bytes()); err != nil {
		return "", err // never write a file the hub would refuse
	}
	return token, replaceFile(path, b.Bytes())
}

// Remove takes name out of the file; its token stops working at the hub's
// next reading (SIGHUP or restart).
func Remove(path, name string) error {
	return rewrite(path, name, func(f *file, i int) error {
		f.User = slices.Delete(f.User, i, i+1)
		return nil
	})
}

// Rotate gives name a new token, returned to be printed once; the old one
// stops working at the hub's next reading.
func Rotate(path, name string) (string, error) {
	var token string
	err := rewrite(path, name, func(f *file, i int) error {
		t, err := NewToken()
		if err != nil {
			return err
		}
		token = t
		f.User[i].TokenSHA256 = HashToken(t)
		return nil
	})
	return token, err
}

// rewrite applies change to the entry named name and writes the file
// anew (comments are not kept by a rewrite). The file need not be valid
// before, only after: rotate is how a damaged hash is replaced, remove how
// a user listed twice is taken out, as the load errors advise.
func rewrite(path, name string, change func(f *file, i int) error) error {
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := os.ReadFile(path) //nolint:gosec // the file the administrator named
	if err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	var f file
	if _, err := toml.Decode(string(data), &f); err != nil {
		return fmt.Errorf("users file %s: %w", path, err)
	}
	i := slices.IndexFunc(f.User, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return fmt.Errorf("users file %s: %w %q", path, ErrNoSuchUser, name)
	}
	if err := change(&f, i); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(f); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	if _, err := Parse(path, b.Bytes()); err != nil {
		return err // never write a file the hub would refuse
	}
	return replaceFile(path, b.Bytes())
}

// lockFile serialises edits of one users file (two administrators adding
// at once must not lose an entry).
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	lk := flock.New(path + ".lock")
	if err := lk.Lock(); err != nil {
		return nil, fmt.Errorf("users file: lock %s: %w", path+".lock", err)
	}
	return func() { _ = lk.Unlock() }, nil
}

// replaceFile writes data beside path, syncs it and renames it over path,
// so a crash leaves the old file or the new one, never half of one.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".users-*.toml")
	if err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("users file: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("users file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("users file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	return nil
}
