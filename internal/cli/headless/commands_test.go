package headless

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// runCommand runs one of this package's commands with an isolated
// environment (no config file, no state) and returns stdout, stderr and
// the exit status main would give.
func runCommand(t *testing.T, c func(*cmdutil.Streams, *cmdutil.Global) *cobra.Command, args ...string) (string, string, int) {
	t.Helper()
	root := t.TempDir()
	env := map[string]string{
		"HOME": filepath.Join(root, "home"), "XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_STATE_HOME": filepath.Join(root, "state"),
	}
	return runCommandEnv(t, env, c, args...)
}

// runCommandEnv is runCommand in the environment env (a profile's
// PAYDASH_* variables, its state directory).
func runCommandEnv(t *testing.T, env map[string]string, c func(*cmdutil.Streams, *cmdutil.Global) *cobra.Command, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] }}
	cmd := c(s, &cmdutil.Global{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err := cmd.ExecuteContext(context.Background())
	if err != nil && !cmdutil.IsSilent(err) {
		errb.WriteString("paydash: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), cmdutil.ExitCode(err)
}

// An unknown status, currency or type is a usage error listing the valid
// values, before any profile is needed: a typo must not read as an empty
// report.
func TestTransactionsUnknownValuesExitTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--status", "settld"}, `unknown status "settld"; valid: authorised, failed, settled, submitted`},
		{[]string{"--currency", "XYZ"}, `unknown currency "XYZ"; valid: AED,`},
		{[]string{"--type", "refund"}, `unknown type "refund"; valid: funding, payout`},
	} {
		out, errOut, code := runCommand(t, TransactionsCommand, c.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d naming the valid values", c.args, code, errOut, out, cmdutil.ExitUsage)
		}
	}
}

// A zero or negative --duplicate-window would switch the duplicate check
// off without saying so: refused as a usage error, nothing sent.
func TestDuplicateWindowMustBePositive(t *testing.T) {
	for _, w := range []string{"-1h", "0"} {
		args := []string{"create", "--duplicate-window", w, "--name", "Ada", "--iban", "GB33BUKB20201555555555", "--reference", "R", "--amount", "1", "--currency", "GBP", "--yes"}
		_, errOut, code := runCommand(t, PayoutCommand, args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--duplicate-window") || !strings.Contains(errOut, "positive") {
			t.Errorf("%v: exit %d (%q), want 2 and a message naming --duplicate-window", args, code, errOut)
		}
	}
}
