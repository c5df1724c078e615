package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/docgen"
)

// The command reference in docs/reference is the command tree's own
// words: a flag or command changed without `paydash gen-docs --markdown
// docs/reference` fails here, naming the page.
func TestCommandReferenceIsUpToDate(t *testing.T) {
	dir := t.TempDir()
	s := &cmdutil.Streams{Getenv: func(string) string { return "" }}
	if err := docgen.Markdown(newTree(s), dir); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	have, _ := filepath.Glob(filepath.Join("docs", "reference", "*.md"))
	const fix = "run: go run . gen-docs --markdown docs/reference"
	if len(want) == 0 {
		t.Fatal("no page generated")
	}
	names := map[string]bool{}
	for _, f := range want {
		name := filepath.Base(f)
		names[name] = true
		gen, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := os.ReadFile(filepath.Join("docs", "reference", name))
		if err != nil {
			t.Errorf("docs/reference/%s is missing (%s)", name, fix)
			continue
		}
		if !bytes.Equal(gen, kept) {
			t.Errorf("docs/reference/%s is out of date (%s)", name, fix)
		}
	}
	for _, f := range have {
		if name := filepath.Base(f); !names[name] && name != "README.md" {
			t.Errorf("docs/reference/%s documents a command that no longer exists (%s)", name, fix)
		}
	}
}
