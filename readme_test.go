package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeUnscripted are the documented command lines no script runs, each
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
	"paydash approvals list":       "needs a team hub: internal/cli/approvals TestTeamEndToEnd runs it against paydash relay --users and the sandbox",
	"paydash approvals approve ID": "needs a team hub: internal/cli/approvals TestTeamEndToEnd runs it against paydash relay --users and the sandbox",
}

// commandSections are the parts of the documentation whose command lines
// must run: the README's "Two commands" and each reader's page's command
// table (its "## Commands" section, up to the next "## " heading).
var commandSections = []struct{ file, from, to string }{
	{"README.md", "## Two commands", "## A 60-second tour"},
	{"docs/treasury.md", "## Commands", "\n## "},
	{"docs/operators.md", "## Commands", "\n## "},
	{"docs/developers.md", "## Commands", "\n## "},
	{"docs/operations.md", "## Commands", "\n## "},
}

// TestReadmeCommandsAreScripted: every command line of the sections
// above is run as written by a script under testdata/script, or listed
// above with the reason it is not. Words in capitals (ID, FILE) and "…"
// stand for any value.
func TestReadmeCommandsAreScripted(t *testing.T) {
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
	seen := 0
	for _, s := range commandSections {
		cmds := documentedCommands(t, s.file, s.from, s.to)
		if len(cmds) == 0 {
			t.Errorf("%s: no command lines in its %q section; has the section moved?", s.file, s.from)
		}
		for _, cmd := range cmds {
			seen++
			if _, ok := readmeUnscripted[cmd]; ok {
				continue
			}
			if !runByAScript(scripted, cmd) {
				t.Errorf("%s: command not run by any testdata/script/*.txtar: %s", s.file, cmd)
			}
		}
	}
	if seen < 40 {
		t.Errorf("found only %d documented commands; have the sections moved?", seen)
	}
}

// TestReadmeCommandMatching: a command is matched as written, with
// placeholders standing for one word; a command no script runs is not.
func TestReadmeCommandMatching(t *testing.T) {
	scripted := normalise("exec paydash events show 3f2a --raw\nexec paydash payout create --name 'Ada Lovelace' --yes > out.json\n")
	for cmd, want := range map[string]bool{
		"paydash events show ID --raw":                true,
		`paydash payout create --name "Ada Lovelace"`: false, // the script's line goes on: not as written
		"paydash events show ID":                      false,
		"paydash events tail --failed":                false,
	} {
		if got := runByAScript(scripted, cmd); got != want {
			t.Errorf("runByAScript(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// documentedCommands are the `paydash …` code spans of file between the
// first from and the next to after it; several commands in one table
// cell are separated by <br>.
func documentedCommands(t *testing.T, file, from, to string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, from)
	if start < 0 {
		t.Fatalf("%s has no %q section", file, from)
	}
	section := text[start+len(from):]
	if end := strings.Index(section, to); end >= 0 {
		section = section[:end]
	}
	var cmds []string
	for _, m := range regexp.MustCompile("`(paydash[^`]*)`").FindAllStringSubmatch(section, -1) {
		for _, cmd := range strings.Split(m[1], "<br>") {
			cmd = strings.TrimSpace(cmd)
			if !strings.HasPrefix(cmd, "paydash") || strings.Contains(cmd, "[") {
				continue // a prose mention such as `paydash payouts log [--json]`
			}
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// runByAScript says whether scripted (normalised) runs cmd as written:
// nothing more on the line but a redirection or testscript's background
// marker.
func runByAScript(scripted, cmd string) bool {
	placeholder := regexp.MustCompile(`\b(ID|FILE|NAME|KEY|NEWPATH)\b|…`)
	pattern := placeholder.ReplaceAllString(regexp.QuoteMeta(normalise(cmd)), `\S+`)
	return regexp.MustCompile(`(?m)(^|\s|'|exec )` + pattern + `\s*($|'|&|>|2>)`).MatchString(scripted)
}

// normalise makes documentation and script quoting comparable: the docs
// write "Ada Lovelace", a script 'Ada Lovelace'.
func normalise(s string) string { return strings.ReplaceAll(s, `"`, `'`) }

// TestDocLinksResolve: every relative link in README.md and docs/*.md
// names a file of the repository, and a #fragment a heading of that page
// as GitHub spells its anchors.
func TestDocLinksResolve(t *testing.T) {
	pages, _ := filepath.Glob("docs/*.md")
	pages = append([]string{"README.md"}, pages...)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(outsideCodeBlocks(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, fragment, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(page), path))
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: link %q: %s does not exist", page, target, file)
				continue
			}
			if fragment != "" && strings.HasSuffix(file, ".md") && !headingAnchors(t, file)[fragment] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, target, file, fragment)
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked only %d links; are the pages there?", checked)
	}
}

// TestHeadingAnchorsAreGitHubs: the anchors links are checked against
// are the ones GitHub makes of a heading.
func TestHeadingAnchorsAreGitHubs(t *testing.T) {
	for heading, want := range map[string]string{
		"Team mode (four eyes)":                      "team-mode-four-eyes",
		"The dashboard live at a busy hour's volume": "the-dashboard-live-at-a-busy-hours-volume",
		"Clustered mode (NATS JetStream)":            "clustered-mode-nats-jetstream",
		"`paydash version` and the build":            "paydash-version-and-the-build",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// outsideCodeBlocks is text with its fenced code blocks blanked: a
// `](x)` in an example is not a link.
func outsideCodeBlocks(text string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line)
		}
	}
	return b.String()
}

// headingAnchors are the anchors of file's headings (a repeated heading
// gets -1, -2, … as on GitHub).
func headingAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	anchors, count := map[string]bool{}, map[string]int{}
	for _, line := range strings.Split(outsideCodeBlocks(string(b)), "\n") {
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		a := anchor(heading)
		if n := count[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		count[a]++
	}
	return anchors
}

// anchor is GitHub's anchor of a heading: lower case, spaces to hyphens,
// everything but letters, digits, hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
