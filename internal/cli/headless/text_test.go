package headless

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TestCreateRefusesNamesThatDriveATerminal: `payout create` refuses a
// name or reference holding a control, format or bidi character before
// sending (exit 2), without echoing the character.
func TestCreateRefusesNamesThatDriveATerminal(t *testing.T) {
	e := startCreateEnv(t, 100_000, nil)
	for i, v := range []string{"Evil\x1b]52;c;ZXZpbA==\a", "GB29\u202e4321", "Paid\rRefund"} {
		for _, field := range []string{"name", "reference"} {
			o := newPayout("TEXT-"+string(rune('A'+i))+field, "1.00")
			if field == "name" {
				o.Name = v
			} else {
				o.Reference = v
			}
			out, errOut, code, err := e.create(t, o)
			if code != cmdutil.ExitUsage || err == nil || !strings.Contains(err.Error(), "U+") {
				t.Errorf("%s %q: exit %d (%v), want %d naming the character", field, v, code, err, cmdutil.ExitUsage)
			}
			if strings.ContainsAny(out+errOut+err.Error(), "\x1b\u202e\r\a") {
				t.Errorf("%s %q: the refusal printed the character raw", field, v)
			}
		}
	}
	if n := e.reportCount(t, "TEXT-Aname") + e.reportCount(t, "TEXT-Bname") + e.reportCount(t, "TEXT-Cname"); n != 0 {
		t.Errorf("%d payouts sent", n)
	}
}
