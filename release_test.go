package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml a release relies on.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Before  struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		Main         string   `yaml:"main"`
		Binary       string   `yaml:"binary"`
		Env          []string `yaml:"env"`
		Goos         []string `yaml:"goos"`
		Goarch       []string `yaml:"goarch"`
		Flags        []string `yaml:"flags"`
		Ldflags      []string `yaml:"ldflags"`
		ModTimestamp string   `yaml:"mod_timestamp"`
	} `yaml:"builds"`
	Archives []struct {
		Files []any `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"checksum"`
}

// The release configuration builds what the README promises: archives
// for linux, darwin and windows on amd64 and arm64, reproducible
// (-trimpath, the commit's time), named by the release's version, with
// completions and man pages beside the binary, and checksums. CI also runs
// `goreleaser check` where GoReleaser is installed (.ci/run).
func TestReleaseConfig(t *testing.T) {
	b, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if c.Version != 2 || len(c.Builds) != 1 || len(c.Archives) != 1 || c.Checksum.NameTemplate == "" {
		t.Fatalf(".goreleaser.yaml: want version 2, one build, one archive and checksums: %+v", c)
	}
	bd := c.Builds[0]
	for _, os := range []string{"linux", "darwin", "windows"} {
		if !slices.Contains(bd.Goos, os) {
			t.Errorf("no %s build", os)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !slices.Contains(bd.Goarch, arch) {
			t.Errorf("no %s build", arch)
		}
	}
	if bd.Main != "." || bd.Binary != "paydash" || !slices.Contains(bd.Env, "CGO_ENABLED=0") ||
		!slices.Contains(bd.Flags, "-trimpath") || bd.ModTimestamp == "" {
		t.Errorf("the build is not the reproducible, static paydash: %+v", bd)
	}
	// The version reaches the variable main reads.
	if !strings.Contains(strings.Join(bd.Ldflags, " "), "-X main.linkedVersion={{ .Version }}") {
		t.Errorf("ldflags %q do not set main.linkedVersion", bd.Ldflags)
	}
	linkedVersion = "v9.9.9" // what -X does
	defer func() { linkedVersion = "dev" }()
	if out, _, code := runIn(t, isolated(t), "", "version"); code != 0 || !strings.HasPrefix(out, "paydash v9.9.9") {
		t.Errorf("a release build says %q (exit %d), want its version", out, code)
	}
	files := strings.Join(func() []string {
		var s []string
		for _, f := range c.Archives[0].Files {
			b, _ := yaml.Marshal(f)
			s = append(s, string(b))
		}
		return s
	}(), " ")
	for _, want := range []string{"README.md", ".release/completions/*", ".release/man/*"} {
		if !strings.Contains(files, want) {
			t.Errorf("the archives do not ship %s", want)
		}
	}
	if !slices.Contains(c.Before.Hooks, "bash .ci/release-assets") {
		t.Errorf("the before hooks %q do not make the completions and man pages", c.Before.Hooks)
	}
}

// The before hook makes completions for four shells and a man page per
// command; and the code builds for Windows, which the release targets (an
// mmap or a signal only unixes have fails here, not at the release).
func TestReleaseAssetsAndOtherSystemsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds paydash twice (-short skips it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dir := t.TempDir()
	root, _ := filepath.Abs(".")
	// The hook writes into the checkout's .release (ignored by git).
	cmd := exec.CommandContext(ctx, "bash", ".ci/release-assets")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/release-assets: %v\n%s", err, b)
	}
	defer os.RemoveAll(filepath.Join(root, ".release"))
	for _, f := range []string{"completions/paydash.bash", "completions/_paydash", "completions/paydash.fish", "completions/paydash.ps1", "man/paydash.1", "man/paydash-payout-create.1"} {
		fi, err := os.Stat(filepath.Join(root, ".release", f))
		if err != nil || fi.Size() == 0 {
			t.Errorf(".release/%s: %v", f, err)
		}
	}
	// Windows is the system most unlike this one; darwin builds as the
	// other unixes do.
	for _, target := range [][2]string{{"windows", "amd64"}} {
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(dir, "paydash-"+target[0]), ".")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+target[0], "GOARCH="+target[1])
		if b, err := build.CombinedOutput(); err != nil {
			t.Errorf("GOOS=%s GOARCH=%s go build: %v\n%s", target[0], target[1], err, b)
		}
	}
}
