package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runIn runs one command line in-process with an isolated environment.
func runIn(t *testing.T, env map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	s := &cmdutil.Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] }}
	code := run(context.Background(), args, s)
	return out.String(), errb.String(), code
}

func isolated(t *testing.T) map[string]string {
	root := t.TempDir()
	return map[string]string{
		"HOME": filepath.Join(root, "home"), "XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_STATE_HOME": filepath.Join(root, "state"),
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	out, _, code := runIn(t, isolated(t), "", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range []string{"demo", "config", "balances", "transactions", "payout", "payment", "mandate", "sandbox", "relay", "events", "completion"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("--help does not list %q:\n%s", c, out)
		}
	}
	for _, sub := range [][]string{{"payout", "--help"}, {"config", "--help"}, {"events", "--help"}} {
		out, _, _ := runIn(t, isolated(t), "", sub...)
		for _, want := range map[string][]string{"payout": {"create", "batch"}, "config": {"init", "show", "check"}, "events": {"tail"}}[sub[0]] {
			if !strings.Contains(out, want) {
				t.Errorf("paydash %s --help lacks %q", sub[0], want)
			}
		}
	}
}

func TestNoProfileNamesDemoAndConfigInit(t *testing.T) {
	for _, args := range [][]string{nil, {"balances"}, {"payout", "create", "--amount", "1"}} {
		out, errOut, code := runIn(t, isolated(t), "", args...)
		if code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cmdutil.ExitUsage)
		}
		if !strings.Contains(errOut, "paydash demo") || !strings.Contains(errOut, "paydash config init") || strings.Contains(errOut, "paydash: ") {
			t.Errorf("%v: stderr %q", args, errOut)
		}
		if out != "" {
			t.Errorf("%v: stdout %q", args, out)
		}
	}
}

func TestConfigInitWritesPrivateTemplateOnce(t *testing.T) {
	env := isolated(t)
	out, errOut, code := runIn(t, env, "", "config", "init")
	path := filepath.Join(env["XDG_CONFIG_HOME"], "paydash", "config.toml")
	if code != 0 || !strings.Contains(out, path) {
		t.Fatalf("exit %d out %q err %q", code, out, errOut)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if err := os.WriteFile(path, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runIn(t, env, "", "config", "init"); code == 0 || !strings.Contains(errOut, "already exists") {
		t.Errorf("second init: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != "# mine\n" {
		t.Error("config init overwrote an existing file")
	}
	// The template is a loadable profile that config show prints redacted.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	runIn(t, env, "", "config", "init")
	out, errOut, code = runIn(t, env, "", "config", "show")
	if code != 0 || !strings.Contains(out, "[profiles.sandbox]") {
		t.Errorf("config show: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{"--no-such-flag"}, {"payout", "batch"}, {"nosuchcommand"}, {"balances", "extra"}} {
		if _, errOut, code := runIn(t, isolated(t), "", args...); code != cmdutil.ExitUsage || errOut == "" {
			t.Errorf("%v: exit %d (%q), want 2 and a message", args, code, errOut)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out, _, code := runIn(t, isolated(t), "", "completion", sh)
		if code != 0 || !strings.Contains(out, "paydash") {
			t.Errorf("completion %s: exit %d, %d bytes", sh, code, len(out))
		}
	}
}

func TestDashboardNeedsATerminal(t *testing.T) {
	env := isolated(t)
	env["PAYDASH_AUTH_URL"], env["PAYDASH_BASE_URL"], env["PAYDASH_PAYOUTS_URL"] = "http://127.0.0.1:1", "http://127.0.0.1:1", "http://127.0.0.1:1"
	env["PAYDASH_CLIENT_ID"], env["PAYDASH_CLIENT_SECRET"] = "id", "secret"
	_, errOut, code := runIn(t, env, "")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "needs a terminal") {
		t.Errorf("exit %d: %q", code, errOut)
	}
	_, errOut, code = runIn(t, env, "", "demo")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--headless") {
		t.Errorf("demo without a terminal: exit %d: %q", code, errOut)
	}
}

// TestHelpNamesEachDefaultOnce walks every command's flags: pflag prints a
// flag's default itself, so a usage string that also says "(default …)"
// shows two defaults, which may disagree.
func TestHelpNamesEachDefaultOnce(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "(default") && f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
				t.Errorf("%s --%s: usage %q names a default beside pflag's own (%q)", c.CommandPath(), f.Name, f.Usage, f.DefValue)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(cmdutil.System()))
}

// TestTyposAreErrorsAtEveryLevel: a mistyped command or subcommand exits
// 2 with what was meant, never help and exit 0 (which a script reads as
// success), and never blames a flag that belongs to the meant command.
func TestTyposAreErrorsAtEveryLevel(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"payout", "creat"}, `unknown command "creat" for "paydash payout"; did you mean "create"?`},
		{[]string{"config", "foo"}, `unknown command "foo" for "paydash config"; its commands are check, init, show`},
		{[]string{"transaction", "--since", "7d"}, `unknown command "transaction" for "paydash"; did you mean "transactions"?`},
		{[]string{"--profile", "x", "payouts", "lgo"}, `unknown command "lgo" for "paydash payouts"; did you mean "log"?`},
		{[]string{"events", "tial", "--json"}, `did you mean "tail"?`},
		{[]string{"completion", "bsh"}, `did you mean "bash"`},
	} {
		out, errOut, code := runIn(t, isolated(t), "", c.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.want) || strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, errOut, out, c.want)
		}
	}
	// A parent command alone still shows its help.
	if out, _, code := runIn(t, isolated(t), "", "payout"); code != 0 || !strings.Contains(out, "batch") {
		t.Errorf("paydash payout: exit %d\n%s", code, out)
	}
}

// TestHelpShowsPeriodsAsPeopleWriteThem: no command's help shows a
// duration as Go prints it (168h0m0s).
func TestHelpShowsPeriodsAsPeopleWriteThem(t *testing.T) {
	root := newRoot(cmdutil.System())
	cmdutil.HumanPeriods(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.DefValue, "h0m") || strings.Contains(f.DefValue, "m0s") {
				t.Errorf("%s --%s: default shown as %q", c.CommandPath(), f.Name, f.DefValue)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out, _, _ := runIn(t, isolated(t), "", "payout", "create", "--help")
	if !strings.Contains(out, "(default 7 days)") {
		t.Errorf("payout create --help does not show the window as 7 days:\n%s", out)
	}
}

// TestEveryHeadlessCommandTakesJSON: the README's "every headless command
// takes --json" holds for every runnable command under Operations, and
// for config show/check and events tail.
func TestEveryHeadlessCommandTakesJSON(t *testing.T) {
	root := newRoot(cmdutil.System())
	var walk func(c *cobra.Command, ops bool)
	walk = func(c *cobra.Command, ops bool) {
		if ops && c.Runnable() && c.Flags().Lookup("json") == nil {
			t.Errorf("%s has no --json", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub, ops)
		}
	}
	for _, c := range root.Commands() {
		walk(c, c.GroupID == "ops" || c.Name() == "events")
	}
	for _, path := range [][]string{{"config", "show"}, {"config", "check"}} {
		c, _, err := root.Find(path)
		if err != nil || c.Flags().Lookup("json") == nil {
			t.Errorf("%v has no --json", path)
		}
	}
}

// TestMainOnlyAssembles: each command package exports its own cobra
// command; main.go only puts them together (at most 150 lines, no flag
// or command of its own).
func TestMainOnlyAssembles(t *testing.T) {
	b, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if n := strings.Count(src, "\n"); n > 150 {
		t.Errorf("main.go has %d lines, want at most 150", n)
	}
	for _, own := range []string{".Flags().", "RunE: func(cmd *cobra.Command, args", "&cobra.Command{\n\t\tUse:   \"payout\""} {
		if strings.Contains(src, own) {
			t.Errorf("main.go defines %q itself; it belongs in its command's package", own)
		}
	}
	if strings.Count(src, "&cobra.Command{") != 1 {
		t.Errorf("main.go builds %d cobra commands, want only the root", strings.Count(src, "&cobra.Command{"))
	}
}
