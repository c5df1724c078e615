package cmdutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved view whose filter the report cannot read is refused when the
// profile is loaded (every command, `config check` too), naming its line.
func TestLoadProfileChecksViewFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	text := `[profiles.ops]
auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "id"
client_secret_env = "OPS_SECRET"

[[profiles.ops.views]]
name = "typo"
filter = "status:settld"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	s := &Streams{Out: &bytes.Buffer{}, Err: &errb, Getenv: func(k string) string {
		if k == "OPS_SECRET" {
			return "s"
		}
		if k == "HOME" {
			return t.TempDir()
		}
		return ""
	}}
	_, err := LoadProfile(s, &Global{ConfigPath: path})
	if err == nil || !strings.Contains(err.Error(), `line 10: filter "status:settld": unknown status "settld"`) {
		t.Fatalf("got %v", err)
	}
}
