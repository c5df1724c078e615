package users

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/BurntSushi/toml"

	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// Roles a user may hold: the hub's wire values (hubapi), as the users
// file spells them.
const (
	// RoleView reads events and approval requests.
	RoleView = hubapi.RoleView
	// RoleRequest submits payouts (and reads approval requests).
	RoleRequest = hubapi.RoleRequest
	// RoleApprove approves or rejects other people's requests (and reads
	// them).
	RoleApprove = hubapi.RoleApprove
)

// AllRoles lists the roles in the order they are printed.
var AllRoles = []string{RoleView, RoleRequest, RoleApprove}

// Entry is one [[user]] table of the file.
type Entry struct {
	Name        string   `toml:"name"`
	TokenSHA256 string   `toml:"token_sha256"`
	Roles       []string `toml:"roles"`
}

// file is the users file as TOML.
type file struct {
	User []Entry `toml:"user"`
}

// User is a person the hub knows, as an authenticated request carries it.
type User struct {
	Name  string
	Roles []string
}

// Has reports whether u holds role. Request and approve include view:
// whoever submits or decides must be able to read what they act on.
func (u User) Has(role string) bool { return hubapi.HasRole(u.Roles, role) }

type user struct {
	User
	hash [sha256.Size]byte
}

// Directory is one reading of the users file.
type Directory struct {
	users []user
}

// Parse reads a users file's content; path only names it in errors.
func Parse(path string, data []byte) (*Directory, error) {
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("users file %s: unknown key %s (each [[user]] has name, token_sha256 and roles)", path, und[0])
	}
	d := &Directory{}
	names := map[string]bool{}
	hashes := map[[sha256.Size]byte]string{}
	for i, e := range f.User {
		where := fmt.Sprintf("users file %s, user %d", path, i+1)
		if err := CheckName(e.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		where = fmt.Sprintf("users file %s, user %q", path, e.Name)
		if names[e.Name] {
			return nil, fmt.Errorf("%s appears twice; remove one with: paydash relay user remove %s --users %s", where, e.Name, path)
		}
		names[e.Name] = true
		raw, err := hex.DecodeString(strings.TrimSpace(e.TokenSHA256))
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%s: token_sha256 must be 64 hex digits (the SHA-256 of the token, never the token); make a new token with: paydash relay user rotate %s --users %s", where, e.Name, path)
		}
		var h [sha256.Size]byte
		copy(h[:], raw)
		if other, ok := hashes[h]; ok {
			return nil, fmt.Errorf("%s has the same token as %q: each person needs their own token; give one a new token with: paydash relay user rotate %s --users %s", where, other, e.Name, path)
		}
		hashes[h] = e.Name
		if len(e.Roles) == 0 {
			return nil, fmt.Errorf("%s has no roles; give some of %s", where, strings.Join(AllRoles, ", "))
		}
		for _, r := range e.Roles {
			if !slices.Contains(AllRoles, r) {
				return nil, fmt.Errorf("%s: unknown role %q; roles are %s", where, r, strings.Join(AllRoles, ", "))
			}
		}
		d.users = append(d.users, user{User: User{Name: e.Name, Roles: slices.Clone(e.Roles)}, hash: h})
	}
	return d, nil
}

// Load reads the users file at path. A missing file is an error: a hub
// given --users must not start with nobody (or everybody) allowed.
func Load(path string) (*Directory, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the file the administrator named
	if err != nil {
		return nil, fmt.Errorf("users file: %w; create it with: paydash relay user add NAME --role request --users %s", err, path)
	}
	return Parse(path, data)
}

// Authenticate returns the user whose token this is. Every user's hash is
// compared, in constant time, whatever matched earlier, so the time taken
// says nothing about which entry (or how much of a hash) matched.
func (d *Directory) Authenticate(token string) (User, bool) {
	if token == "" {
		return User{}, false
	}
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range d.users {
		if subtle.ConstantTimeCompare(sum[:], d.users[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return User{}, false
	}
	u := d.users[found].User
	u.Roles = slices.Clone(u.Roles)
	return u, true
}

// Holding returns the names of the users who hold role, in file order.
func (d *Directory) Holding(role string) []string {
	var out []string
	for _, u := range d.users {
		if u.Has(role) {
			out = append(out, u.Name)
		}
	}
	return out
}

// Len is how many users the file lists.
func (d *Directory) Len() int { return len(d.users) }

// Live is the users file as the running hub sees it: read at start and
// again by Reload (on SIGHUP). A reading that fails, or that check
// refuses, leaves the previous one in force.
type Live struct {
	path    string
	check   func(*Directory) error
	cur     atomic.Pointer[Directory]
	warning atomic.Pointer[string]
}

// loadGuarded reads the users file as the hub does, minding its mode as
// ssh minds authorized_keys: a file group or others may write is refused
// (anyone who can write it can add themselves as an approver), and one
// others may read is read with a warning. The mode is the open file's,
// so what is checked is what is read.
func loadGuarded(path string) (d *Directory, warning string, err error) {
	f, err := os.Open(path) //nolint:gosec // the file the administrator named
	if err != nil {
		return nil, "", fmt.Errorf("users file: %w; create it with: paydash relay user add NAME --role request --users %s", err, path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("users file %s: %w", path, err)
	}
	if perm := st.Mode().Perm(); runtime.GOOS != "windows" {
		if perm&0o022 != 0 {
			return nil, "", fmt.Errorf("users file %s is writable by group or others (mode %04o): whoever can write it can make themselves an approver; run: chmod 600 %s", path, perm, path)
		}
		if perm&0o004 != 0 {
			warning = fmt.Sprintf("users file %s can be read by other users (mode %04o): it holds who may approve and their tokens' hashes; run: chmod 600 %s", path, perm, path)
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, "", fmt.Errorf("users file %s: %w", path, err)
	}
	d, err = Parse(path, data)
	return d, warning, err
}

// Open reads path; check (may be nil) is every reading's extra rule, such
// as enough approvers for the policy.
func Open(path string, check func(*Directory) error) (*Live, error) {
	l := &Live{path: path, check: check}
	if err := l.Reload(); err != nil {
		return nil, err
	}
	return l, nil
}

// Reload reads the file again. A file group or others may write is
// refused; one others may read is read, and Warning says so.
func (l *Live) Reload() error {
	d, warning, err := loadGuarded(l.path)
	if err != nil {
		return err
	}
	if l.check != nil {
		if err := l.check(d); err != nil {
			return err
		}
	}
	l.cur.Store(d)
	l.warning.Store(&warning)
	return nil
}

// Warning is what the reading in force has to say of the file's mode
// ("" when nothing): the hub prints it at start and logs it on reload.
func (l *Live) Warning() string {
	if w := l.warning.Load(); w != nil {
		return *w
	}
	return ""
}

// Current is the reading in force.
func (l *Live) Current() *Directory { return l.cur.Load() }

// Path is the users file.
func (l *Live) Path() string { return l.path }

// ErrNoSuchUser is returned by Remove and Rotate for a name the file lacks.
var ErrNoSuchUser = errors.New("no such user")

// CheckName is the rule for user names: 1 to 64 letters, digits, '.', '_',
// '-' or '@', so a name prints safely and needs no quoting anywhere.
func CheckName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("user name %q must have 1 to 64 characters", name)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r)
		if !ok {
			return fmt.Errorf("user name %q: use letters, digits, '.', '_', '-' and '@' only", name)
		}
	}
	return nil
}
