package batch

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// A zero or negative --duplicate-window would switch the duplicate check
// off for the whole batch without saying so: refused as a usage error
// before the file is read.
func TestBatchDuplicateWindowMustBePositive(t *testing.T) {
	var out, errb bytes.Buffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}
	c := PayoutBatchCommand(s, &cmdutil.Global{})
	c.SilenceErrors, c.SilenceUsage = true, true
	c.SetArgs([]string{"payouts.csv", "--duplicate-window", "-24h", "--yes"})
	err := c.ExecuteContext(context.Background())
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || err == nil || !strings.Contains(err.Error(), "--duplicate-window") || !strings.Contains(err.Error(), "positive") {
		t.Errorf("exit %d (%v), want 2 and a message naming --duplicate-window", cmdutil.ExitCode(err), err)
	}
}
