package arch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
)

// allowed are imports that break a rule and are known, as "from -> to"
// (paths relative to the module): none since issue 27. Each is reported
// while it is here and no longer breaks a rule, so the list only shrinks.
var allowed = []string{}

const module = "github.com/paydash/paydash"

// pkg is one package of the module: its path relative to the module ("" is
// main) and the module packages its non-test files import.
type pkg struct {
	Path    string
	Imports []string
}

// violation is one import against one rule.
type violation struct {
	From, To, Rule string
}

func (v violation) edge() string { return v.From + " -> " + v.To }

func (v violation) String() string { return v.edge() + ": " + v.Rule }

// under reports whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// isTestHelper: a package named <pkg>test (hubtest, relaytest,
// payouttest, natstest) fakes or runs something for tests, so it may
// import servers.
func isTestHelper(p string) bool { return strings.HasSuffix(path.Base(p), "test") }

// serverCommands run or administer a server, so they link it.
var serverCommands = []string{"internal/cli/serve", "internal/cli/demo"}

func isServerCommand(p string) bool {
	return slices.ContainsFunc(serverCommands, func(d string) bool { return under(p, d) })
}

// isClient: the dashboard, the pipeline, the report engine, the profiles,
// every command but the server commands, and the client packages
// themselves (a client package that linked its server would link it into
// every client).
func isClient(p string) bool {
	if isTestHelper(p) {
		return false
	}
	if slices.ContainsFunc(clientPackages, func(d string) bool { return under(p, d) }) {
		return true
	}
	for _, d := range []string{"ui", "internal/payout", "internal/report", "config"} {
		if under(p, d) {
			return true
		}
	}
	return under(p, "internal/cli") && !isServerCommand(p)
}

// clientPackages are all of the relay, the hub and the sandbox a client
// may import.
var clientPackages = []string{
	"webhookrelay/relayclient",
	"webhookrelay/webhooklate",
	"webhookrelay/hub/hubapi",
	"webhookrelay/hub/hubclient",
	"api/sandbox/sandboxapi",
}

// isServerSide: the relay, the hub (server, store, users, policy, audit
// record) and the sandbox: everything under webhookrelay and api/sandbox
// but their client packages.
func isServerSide(p string) bool {
	if slices.ContainsFunc(clientPackages, func(d string) bool { return under(p, d) }) {
		return false
	}
	return under(p, "webhookrelay") || under(p, "api/sandbox")
}

// rank places a package in the layering, imports pointing down only: a
// package may import its own rank or below. ok is false for a package
// the rules do not place, which is itself an error: a new folder is given
// its place here.
func rank(p string) (r int, ok bool) {
	switch {
	case p == "", p == "e2e", p == "internal/arch":
		return 6, true
	case under(p, "internal/cli"):
		return 5, true
	case under(p, "ui"):
		return 4, true
	case under(p, "internal/payout"), under(p, "internal/report"), under(p, "config"),
		under(p, "webhookrelay"), under(p, "api/sandbox"):
		return 3, true
	case under(p, "api"):
		return 2, true
	case under(p, "internal/platform"):
		return 1, true
	}
	return 0, false
}

var rankNames = map[int]string{
	6: "main", 5: "internal/cli", 4: "ui",
	3: "payout, report, config, the relay, the hub and the sandbox", 2: "api", 1: "internal/platform",
}

// subsystem is the folder p belongs to for the cycle rule: each platform
// leaf, the relay's client and late-webhook book, the hub and the sandbox
// are subsystems of their own; every other package belongs to its top
// folder (internal/x for internal).
func subsystem(p string) string {
	for _, d := range []string{"api/sandbox", "webhookrelay/relayclient", "webhookrelay/webhooklate", "webhookrelay/hub"} {
		if under(p, d) {
			return d
		}
	}
	parts := strings.Split(p, "/")
	switch {
	case p == "":
		return "main"
	case parts[0] == "internal" && len(parts) >= 3 && parts[1] == "platform":
		return strings.Join(parts[:3], "/")
	case parts[0] == "internal" && len(parts) >= 2:
		return strings.Join(parts[:2], "/")
	}
	return parts[0]
}

// check returns every import of pkgs against the rules, sorted.
func check(pkgs []pkg) []violation {
	var vs []violation
	add := func(from, to, rule string) { vs = append(vs, violation{from, to, rule}) }
	for _, p := range pkgs {
		if _, ok := rank(p.Path); !ok {
			add(p.Path, p.Path, "a package the layering does not place: give its folder a rank in internal/arch")
		}
		for _, imp := range p.Imports {
			if isClient(p.Path) && isServerSide(imp) {
				add(p.Path, imp, "a client imports a server, a store or a server's test helper; of the relay, the hub and the sandbox, clients import only "+strings.Join(clientPackages, ", ")+" (a command that runs or administers a server belongs in serverCommands)")
			}
			if under(imp, "api/sandbox") && !under(imp, "api/sandbox/sandboxapi") && !under(p.Path, "api/sandbox") &&
				!isServerCommand(p.Path) && !isTestHelper(p.Path) {
				add(p.Path, imp, "the sandbox server is linked only by the server commands ("+strings.Join(serverCommands, ", ")+") and test helpers; clients use api/sandbox/sandboxapi")
			}
			if under(p.Path, "internal/platform") && !under(imp, "internal/platform") {
				add(p.Path, imp, "internal/platform imports nothing of paydash outside internal/platform")
			}
			if rf, ok := rank(p.Path); ok {
				if ri, ok := rank(imp); ok && ri > rf {
					add(p.Path, imp, fmt.Sprintf("an import pointing up, from %s to %s", rankNames[rf], rankNames[ri]))
				}
			}
		}
	}
	vs = append(vs, cycles(pkgs)...)
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].From != vs[j].From {
			return vs[i].From < vs[j].From
		}
		if vs[i].To != vs[j].To {
			return vs[i].To < vs[j].To
		}
		return vs[i].Rule < vs[j].Rule
	})
	return vs
}

// cycles reports, for every loop between subsystem folders, each package
// import that is part of it (Tarjan's strongly connected components on
// the graph of subsystems).
func cycles(pkgs []pkg) []violation {
	graph := map[string]map[string]bool{}
	for _, p := range pkgs {
		from := subsystem(p.Path)
		if graph[from] == nil {
			graph[from] = map[string]bool{}
		}
		for _, imp := range p.Imports {
			if to := subsystem(imp); to != from {
				graph[from][to] = true
			}
		}
	}
	nodes := make([]string, 0, len(graph))
	for n := range graph {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	comp := map[string]int{}
	ncomp := 0
	var connect func(n string)
	connect = func(n string) {
		index[n], low[n] = len(index), len(index)
		stack = append(stack, n)
		onStack[n] = true
		for m := range graph[n] {
			if _, seen := index[m]; !seen {
				connect(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
		}
		if low[n] == index[n] {
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				comp[m] = ncomp
				if m == n {
					break
				}
			}
			ncomp++
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			connect(n)
		}
	}
	size := map[int][]string{}
	for n, c := range comp {
		size[c] = append(size[c], n)
	}
	var vs []violation
	for _, p := range pkgs {
		from := subsystem(p.Path)
		for _, imp := range p.Imports {
			to := subsystem(imp)
			if to != from && comp[from] == comp[to] {
				loop := size[comp[from]]
				sort.Strings(loop)
				vs = append(vs, violation{p.Path, imp, "subsystems import each other: " + strings.Join(loop, ", ")})
			}
		}
	}
	return vs
}

// listed is what `go list` says of one package of the module.
type listed struct {
	ImportPath, Name, Doc string
	GoFiles, Imports      []string
	Error                 *struct{ Err string }
}

// goList lists the module's packages with `go list` (the go command that
// runs the test: go test puts its toolchain first on PATH).
func goList(t *testing.T) []listed {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the test reads the packages with the go command: %v", err)
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(goTool, "list", "-e", "-json=ImportPath,Name,Doc,GoFiles,Imports,Error", module+"/...")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var all []listed
	dec := json.NewDecoder(&out)
	for {
		var lp listed
		if err := dec.Decode(&lp); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if lp.Error != nil {
			t.Errorf("go list %s: %s", lp.ImportPath, lp.Error.Err)
		}
		all = append(all, lp)
	}
	return all
}

// modulePackages are the module's packages, each with the imports of its
// non-test files that are module packages.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	var pkgs []pkg
	for _, lp := range goList(t) {
		p := pkg{Path: rel(lp.ImportPath)}
		for _, imp := range lp.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				p.Imports = append(p.Imports, rel(imp))
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
}

// TestLayering holds the rules of the package doc on the module as it is,
// listing every import that breaks one.
func TestLayering(t *testing.T) {
	pkgs := modulePackages(t)
	// The rules only hold if the packages were read at all.
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.Path] = true
	}
	for _, want := range []string{"", "ui", "api", "api/sandbox", "webhookrelay", "webhookrelay/hub/store", "internal/cli/serve", "internal/platform/clock"} {
		if !seen[want] {
			t.Fatalf("go list did not list %q: the test reads the wrong module", want)
		}
	}
	stale := map[string]bool{}
	for _, e := range allowed {
		stale[e] = true
	}
	for _, v := range check(pkgs) {
		if slices.Contains(allowed, v.edge()) {
			delete(stale, v.edge())
			continue
		}
		t.Errorf("%s", v)
	}
	for _, e := range allowed {
		if stale[e] {
			t.Errorf("%s is allowed in internal/arch but breaks no rule any more: delete it from the list", e)
		}
	}
}

// TestRulesCatchWhatTheyShould runs the rules on made-up imports, so the
// layering test cannot pass by checking nothing.
func TestRulesCatchWhatTheyShould(t *testing.T) {
	for _, c := range []struct {
		from, to string
		flagged  bool
	}{
		{"ui", "webhookrelay/hub/store", true},
		{"ui", "webhookrelay/hub", true},
		{"ui", "api/sandbox", true},
		{"ui", "webhookrelay", true},
		{"ui", "webhookrelay/relaytest", true},
		{"internal/payout", "webhookrelay/hub/users", true},
		{"config", "webhookrelay/hub/policy", true},
		{"internal/cli/headless", "webhookrelay/hub/auditlog", true},
		{"webhookrelay/hub/hubclient", "api/sandbox", true},
		{"webhookrelay/hub/hubclient", "webhookrelay/hub/store", true},
		{"webhookrelay/relayclient", "webhookrelay", true},
		{"api/sandbox/sandboxapi", "api/sandbox", true},
		{"internal/platform/wsfan", "api", true},
		{"internal/platform/natsstream", "webhookrelay/hub/store", true},
		{"api", "ui", true},
		{"api", "config", true},
		{"api", "internal/cli/cmdutil", true},
		{"config", "ui", true},
		{"internal/payout", "internal/cli/cmdutil", true},
		{"internal/report", "ui", true},
		{"ui", "internal/cli/cmdutil", true},
		{"internal/cli/cmdutil", "", true},
		{"newtop", "api", true},

		{"ui", "webhookrelay/hub/hubclient", false},
		{"webhookrelay/hub/hubclient", "webhookrelay/hub/hubapi", false},
		{"webhookrelay/webhooklate", "webhookrelay/relayclient", false},
		{"api/sandbox", "api/sandbox/sandboxapi", false},
		{"ui", "webhookrelay/hub/hubapi", false},
		{"ui", "webhookrelay/relayclient", false},
		{"ui", "api/sandbox/sandboxapi", false},
		{"internal/cli/devtools", "api/sandbox/sandboxapi", false},
		{"internal/cli/serve", "api/sandbox", false},
		{"internal/cli/serve", "webhookrelay/hub/store", false},
		{"internal/cli/demo", "webhookrelay", false},
		{"webhookrelay/hub/hubtest", "api/sandbox", false},
		{"internal/payout/payouttest", "internal/payout", false},
		{"webhookrelay/hub", "internal/payout", false},
		{"internal/platform/natsstream", "internal/platform/clock", false},
		{"", "internal/cli/serve", false},
	} {
		vs := check([]pkg{{Path: c.from, Imports: []string{c.to}}})
		if got := len(vs) > 0; got != c.flagged {
			t.Errorf("%s -> %s: flagged %v (%v), want %v", c.from, c.to, got, vs, c.flagged)
		}
	}

	// Two subsystems importing each other, however far round, are one
	// loop; each import in it is named.
	vs := check([]pkg{
		{Path: "webhookrelay", Imports: []string{"webhookrelay/hub/policy"}},
		{Path: "webhookrelay/hub", Imports: []string{"internal/payout"}},
		{Path: "internal/payout", Imports: []string{"webhookrelay/relayclient"}},
		{Path: "webhookrelay/hub/policy", Imports: []string{"webhookrelay"}},
	})
	var loop []string
	for _, v := range vs {
		if strings.HasPrefix(v.Rule, "subsystems import each other") {
			loop = append(loop, v.edge())
		}
	}
	want := []string{"webhookrelay -> webhookrelay/hub/policy", "webhookrelay/hub/policy -> webhookrelay"}
	if !slices.Equal(loop, want) {
		t.Errorf("loop imports %q, want %q (all: %v)", loop, want, vs)
	}
}

// subsystemDocs are the folders that say in a doc.go what they own and
// what they may import (issue 27).
var subsystemDocs = []string{
	"api", "api/sandbox", "api/sandbox/sandboxapi",
	"webhookrelay", "webhookrelay/relayclient", "webhookrelay/webhooklate",
	"webhookrelay/hub", "webhookrelay/hub/store", "webhookrelay/hub/users", "webhookrelay/hub/policy",
	"webhookrelay/hub/auditlog", "webhookrelay/hub/hubclient", "webhookrelay/hub/hubtest",
	"ui", "config",
	"internal/cli", "internal/cli/approvals", "internal/cli/cmdutil", "internal/cli/dashboard",
	"internal/cli/demo", "internal/cli/devtools", "internal/cli/headless", "internal/cli/serve",
	"internal/payout", "internal/report",
	"internal/platform", "internal/platform/clock", "internal/platform/httpguard", "internal/platform/natsstream",
	"internal/platform/natstest", "internal/platform/termtext", "internal/platform/wsfan",
	"internal/arch", "e2e",
}

// TestEveryPackageSaysWhatItIs: every package with code has a doc comment
// ("Package x ..."; "Command paydash ..." for main), and every subsystem
// folder keeps it in a doc.go.
func TestEveryPackageSaysWhatItIs(t *testing.T) {
	docs := map[string]bool{}
	for _, lp := range goList(t) {
		p := rel(lp.ImportPath)
		docs[p] = slices.Contains(lp.GoFiles, "doc.go")
		want := "Package " + lp.Name + " "
		if lp.Name == "main" {
			want = "Command "
		}
		if len(lp.GoFiles) > 0 && !strings.HasPrefix(lp.Doc, want) {
			t.Errorf("%s: no doc comment starting %q (found %q)", lp.ImportPath, want, lp.Doc)
		}
	}
	for _, d := range subsystemDocs {
		if !docs[d] {
			t.Errorf("%s has no doc.go saying what it owns and what it may import", d)
		}
	}
}
