package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeUnscripted are the README's command lines no script runs, each
// with why and where else it is covered.
var readmeUnscripted = map[string]string{
	"paydash":                      "opens the dashboard: needs a terminal (e2e/)",
	"paydash --profile production": "opens the dashboard on a production profile: needs a terminal and the service",
	"paydash demo":                 "opens the dashboard: needs a terminal (e2e/, internal/cli/demo)",
	"paydash demo --history 1000000 --seed 7":                "opens the dashboard: needs a terminal (e2e/)",
	"paydash sandbox --listen 127.0.0.1:8080 --history 5000": "a fixed port: tests listen on :0 only (internal/cli/serve)",
	"paydash relay --listen 127.0.0.1:8787 --jku-allow https://…/.well-known/jwks --forward-to 'payout_failed,payout_*=http://localhost:3000/payouts' --forward-to http://localhost:3000/hooks -v": "fixed ports and a placeholder: readme_events.txtar runs the relay on a free port with the sandbox's JWKS, readme_workbench.txtar a route; routes in webhookrelay (TestRoutes*)",
	"paydash events resend ID --to http://127.0.0.1:3000/webhooks --json":               "needs a handler on a fixed port: internal/cli/devtools TestResend* resend to loopback handlers that answer 200, 500 or hang",
	`paydash --config "${XDG_STATE_HOME:-$HOME/.local/state}/paydash/demo/config.toml"`: "opens the dashboard: needs a terminal; readme_demo_attach.txtar runs the same path with balances",
	"paydash sandbox --json": "listens on the default fixed port: tests listen on :0 only",
	"paydash relay --nats nats://n1:4222,nats://n2:4222 --nats-stream PAYDASH_RELAY --nats-replicas 3 …": "needs a NATS cluster (webhookrelay's clustered tests)",
}

// TestReadmeCommandsAreScripted: every command line of the README's
// Commands section (and the demo's attach line) is run as written by a
// script under testdata/script, or listed above with the reason it is
// not. Words in capitals (ID, FILE) and "…" stand for any value.
func TestReadmeCommandsAreScripted(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start, end := strings.Index(text, "## Two commands"), strings.Index(text, "## Key bindings")
	if start < 0 || end < start {
		t.Fatal("README has no Commands section between '## Two commands' and '## Key bindings'")
	}
	section := text[start:end]
	var scripts strings.Builder
	files, _ := filepath.Glob("testdata/script/*.txtar")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		scripts.Write(b)
	}
	scripted := normalise(scripts.String())
	placeholder := regexp.MustCompile(`\b(ID|FILE|NAME|KEY|NEWPATH)\b|…`)
	seen := 0
	for _, m := range regexp.MustCompile("`(paydash[^`]*)`").FindAllStringSubmatch(section, -1) {
		for _, cmd := range strings.Split(m[1], "<br>") {
			cmd = strings.TrimSpace(cmd)
			if !strings.HasPrefix(cmd, "paydash") || strings.Contains(cmd, "[") {
				continue // a prose mention such as `paydash payouts log [--json]`
			}
			seen++
			if _, ok := readmeUnscripted[cmd]; ok {
				continue
			}
			pattern := placeholder.ReplaceAllString(regexp.QuoteMeta(normalise(cmd)), `\S+`)
			// As written: nothing more on the line but a redirection or
			// testscript's background marker.
			if !regexp.MustCompile(`(?m)(^|\s|'|exec )` + pattern + `\s*($|'|&|>|2>)`).MatchString(scripted) {
				t.Errorf("README command not run by any testdata/script/*.txtar: %s", cmd)
			}
		}
	}
	if seen < 20 {
		t.Errorf("found only %d README commands; has the section moved?", seen)
	}
}

// normalise makes README and script quoting comparable: the README
// writes "Ada Lovelace", a script 'Ada Lovelace'.
func normalise(s string) string { return strings.ReplaceAll(s, `"`, `'`) }
