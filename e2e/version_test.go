package e2e

import (
	"archive/zip"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// versionOf runs bin version --json.
func versionOf(t *testing.T, bin string) map[string]any {
	t.Helper()
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", bin, err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version --json: %v: %s", err, out)
	}
	line, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if !strings.HasPrefix(string(line), "paydash "+v["version"].(string)) {
		t.Fatalf("--version says %q, version --json says %v", line, v["version"])
	}
	return v
}

// A binary built from a checkout names the commit it was built from, so
// a bug report says which code it is about.
func TestVersionOfACheckoutBuildNamesItsRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary again with VCS stamping (-short skips it)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		t.Skip("not a git clone (the toolchain stamps VCS data only there)")
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "paydash")
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", out, ".")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	v := versionOf(t, out)
	if v["revision"] != strings.TrimSpace(string(rev)) {
		t.Fatalf("version --json revision = %v, want HEAD %s", v["revision"], rev)
	}
	if v["version"] == "dev" || v["time"] == nil {
		t.Fatalf("version --json = %v: want the toolchain's pseudo-version and the commit time", v)
	}
}

// `go install module@version` (a release, from a module proxy) names
// that version. The proxy here is a file:// one made from this checkout;
// the dependencies come from the local module cache, so nothing leaves
// the machine.
func TestVersionOfGoInstallNamesTheModuleVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds paydash from a module proxy (-short skips it)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("no git to list the module's files: %v", err)
	}
	gomodcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mod, ver = "github.com/paydash/paydash", "v1.4.0"
	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", mod, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(at, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("list", ver+"\n")
	write(ver+".info", `{"Version":"`+ver+`","Time":"2026-11-28T00:00:00Z"}`)
	write(ver+".mod", string(gomod))
	zf, err := os.Create(filepath.Join(at, ver+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(mod + "@" + ver + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	gobin := filepath.Join(tmp, "bin")
	install := exec.CommandContext(ctx, "go", "install", mod+"@"+ver)
	install.Dir = tmp
	install.Env = append(os.Environ(),
		"GOBIN="+gobin,
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		// This module from the file proxy; every dependency from the
		// local module cache's download directory, itself a proxy.
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(strings.TrimSpace(string(gomodcache)), "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local")
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@%s: %v\n%s", mod, ver, err, b)
	}
	v := versionOf(t, filepath.Join(gobin, "paydash"))
	if v["version"] != ver {
		t.Fatalf("version --json = %v, want version %s", v, ver)
	}
}
