package users

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/paydash/paydash/config"
)

func TestAddPrintsATokenOnceAndStoresOnlyItsHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.toml")
	token, err := Add(path, "ada", []string{RoleRequest, RoleApprove})
	if err != nil {
		t.Fatal(err)
	}
	if len(token) < 32 {
		t.Fatalf("token has %d characters, want at least 32", len(token))
	}
	if err := config.CheckToken(token); err != nil {
		t.Fatalf("token is not usable as a profile's relay_token: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Fatal("the users file holds the token in clear")
	}
	if !strings.Contains(string(data), HashToken(token)) {
		t.Fatalf("the users file lacks the token's hash:\n%s", data)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("users file mode %v, want 0600", st.Mode().Perm())
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := d.Authenticate(token)
	if !ok || u.Name != "ada" || !u.Has(RoleApprove) || !u.Has(RoleRequest) {
		t.Fatalf("Authenticate = %+v, %v", u, ok)
	}
	if _, ok := d.Authenticate(token + "x"); ok {
		t.Fatal("a token with an extra character was accepted")
	}
	if _, ok := d.Authenticate(""); ok {
		t.Fatal("the empty token was accepted")
	}
}

func TestAddKeepsCommentsAndRefusesATakenName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.toml")
	if err := os.WriteFile(path, []byte("# the treasury team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(path, "ada", []string{RoleRequest}); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(path, "bob", []string{RoleView}); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(path, "ada", []string{RoleView}); err == nil || !strings.Contains(err.Error(), "user rotate ada") {
		t.Fatalf("second ada: %v, want a refusal naming rotate", err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "# the treasury team\n") {
		t.Fatalf("comment lost:\n%s", data)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 2 {
		t.Fatalf("%d users, want 2", d.Len())
	}
}

func TestConcurrentAddsLoseNoUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.toml")
	var wg sync.WaitGroup
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5", "a6"} {
		wg.Go(func() {
			if _, err := Add(path, n, []string{RoleView}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 6 {
		t.Fatalf("%d users after 6 concurrent adds", d.Len())
	}
}

func TestRotateAndRemoveTakeEffectOnReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.toml")
	ada, _ := Add(path, "ada", []string{RoleRequest})
	bob, _ := Add(path, "bob", []string{RoleApprove})
	live, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	newAda, err := Rotate(path, "ada")
	if err != nil {
		t.Fatal(err)
	}
	if newAda == ada {
		t.Fatal("rotate kept the token")
	}
	if err := Remove(path, "bob"); err != nil {
		t.Fatal(err)
	}
	// Until the hub reads the file again, the old reading holds.
	if _, ok := live.Current().Authenticate(ada); !ok {
		t.Fatal("old token refused before reload")
	}
	if err := live.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, ok := live.Current().Authenticate(ada); ok {
		t.Fatal("rotated-out token still accepted after reload")
	}
	if u, ok := live.Current().Authenticate(newAda); !ok || u.Name != "ada" {
		t.Fatal("new token refused after reload")
	}
	if _, ok := live.Current().Authenticate(bob); ok {
		t.Fatal("removed user's token still accepted after reload")
	}
	if err := Remove(path, "carol"); !errors.Is(err, ErrNoSuchUser) {
		t.Fatalf("remove of an unknown user: %v", err)
	}
}

func TestReloadRefusedKeepsThePreviousReading(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.toml")
	ada, _ := Add(path, "ada", []string{RoleApprove})
	needApprover := func(d *Directory) error {
		if len(d.Holding(RoleApprove)) < 1 {
			return errors.New("fewer approvers than --approvers")
		}
		return nil
	}
	live, err := Open(path, needApprover)
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(path, "ada"); err != nil {
		t.Fatal(err)
	}
	if err := live.Reload(); err == nil {
		t.Fatal("reload accepted a file with no approver")
	}
	if _, ok := live.Current().Authenticate(ada); !ok {
		t.Fatal("a refused reload replaced the reading in force")
	}
	if err := os.WriteFile(path, []byte("[[user]]\nname = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := live.Reload(); err == nil {
		t.Fatal("reload accepted a user without token_sha256")
	}
}

func TestParseRefusesWhatWouldWeakenTheHub(t *testing.T) {
	h := HashToken("a-token-of-enough-length-0001")
	for name, body := range map[string]string{
		"clear token":  "[[user]]\nname = \"a\"\ntoken_sha256 = \"hunter2hunter2hunter2\"\nroles = [\"view\"]\n",
		"unknown role": "[[user]]\nname = \"a\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"admin\"]\n",
		"no roles":     "[[user]]\nname = \"a\"\ntoken_sha256 = \"" + h + "\"\n",
		"shared token": "[[user]]\nname = \"a\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"view\"]\n[[user]]\nname = \"b\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"view\"]\n",
		"twice":        "[[user]]\nname = \"a\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"view\"]\n[[user]]\nname = \"a\"\ntoken_sha256 = \"" + HashToken("other-token-000000000") + "\"\nroles = [\"view\"]\n",
		"unknown key":  "[[user]]\nname = \"a\"\ntoken = \"x\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"view\"]\n",
		"bad name":     "[[user]]\nname = \"a b\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"view\"]\n",
	} {
		if _, err := Parse("users.toml", []byte(body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestRolesAndView(t *testing.T) {
	if _, err := ParseRoles([]string{"request,admin"}); err == nil {
		t.Fatal("unknown role accepted")
	}
	r, err := ParseRoles([]string{"request, approve", "request"})
	if err != nil || strings.Join(r, ",") != "request,approve" {
		t.Fatalf("ParseRoles = %v, %v", r, err)
	}
	viewer := User{Name: "v", Roles: []string{RoleView}}
	if viewer.Has(RoleRequest) || viewer.Has(RoleApprove) || !viewer.Has(RoleView) {
		t.Fatal("view-only user's roles wrong")
	}
	approver := User{Name: "a", Roles: []string{RoleApprove}}
	if !approver.Has(RoleView) || approver.Has(RoleRequest) {
		t.Fatal("approver reads but does not request")
	}
}

func TestTheLoadErrorsAdviceRepairsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.toml")
	h := HashToken("first-token-of-enough-length")
	// A clear token where the hash belongs: the error says rotate.
	if err := os.WriteFile(path, []byte("[[user]]\nname = \"ada\"\ntoken_sha256 = \"hunter2\"\nroles = [\"approve\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "paydash relay user rotate ada --users "+path) {
		t.Fatalf("load: %v", err)
	}
	tok, err := Rotate(path, "ada")
	if err != nil {
		t.Fatalf("following the advice: %v", err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := d.Authenticate(tok); !ok || u.Name != "ada" {
		t.Fatal("the rotated token does not work")
	}
	// A user listed twice: the error says remove.
	body := "[[user]]\nname = \"bob\"\ntoken_sha256 = \"" + h + "\"\nroles = [\"view\"]\n" +
		"[[user]]\nname = \"bob\"\ntoken_sha256 = \"" + HashToken("second-token-of-enough-len") + "\"\nroles = [\"view\"]\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	if err == nil || !strings.Contains(err.Error(), "paydash relay user remove bob --users "+path) {
		t.Fatalf("load: %v", err)
	}
	if err := Remove(path, "bob"); err != nil {
		t.Fatalf("following the advice: %v", err)
	}
	d, err = Load(path)
	if err != nil || d.Len() != 1 {
		t.Fatalf("after remove: %v users, %v", d, err)
	}
	if _, ok := d.Authenticate("second-token-of-enough-len"); !ok {
		t.Fatal("the remaining bob lost his token")
	}
}

// The hub minds the users file's mode as ssh minds authorized_keys:
// writable by group or others is refused at start and at reload (the
// users in force stay), readable by others is read with a warning.
func TestLiveRefusesAUsersFileOthersMayWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes")
	}
	path := filepath.Join(t.TempDir(), "users.toml")
	if _, err := Add(path, "ada", []string{RoleApprove}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o666, 0o620, 0o602} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), "writable by group or others") || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("mode %04o: Open = %v, want a refusal saying chmod 600", mode, err)
		}
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := l.Warning(); !strings.Contains(w, "read by other users") {
		t.Fatalf("mode 0644: warning %q", w)
	}
	// A reload of a file made writable by others keeps the users in
	// force; one made private again clears the warning.
	if err := os.Chmod(path, 0o646); err != nil {
		t.Fatal(err)
	}
	if err := l.Reload(); err == nil || l.Current().Len() != 1 {
		t.Fatalf("reload of a 0646 file: %v", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Reload(); err != nil || l.Warning() != "" {
		t.Fatalf("reload of a 0600 file: %v, warning %q", err, l.Warning())
	}
}
