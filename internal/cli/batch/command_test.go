package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/batch"
)

func TestCommandDryRunAndRefusalNeedNoProfile(t *testing.T) {
	f, path := writeBatch(t, 3)
	var out, errb bytes.Buffer
	// No profile is configured: a dry run still checks the file and lists
	// its rows, but says balances and earlier payouts were not checked and
	// fails, since it cannot say the batch can be paid.
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}
	if err := Command(context.Background(), s, &cmdutil.Global{ConfigPath: "/nonexistent/config.toml"}, path, &CommandOptions{DryRun: true}); cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted {
		t.Fatalf("dry run without a profile: %v, want exit %d", err, cmdutil.ExitNotAccepted)
	}
	if got := out.String(); !strings.Contains(got, "would send 3") || !strings.Contains(got, "nothing was sent") || !strings.Contains(got, formatTotals(f.Totals())) ||
		!strings.Contains(got, "NOT checked") || !strings.Contains(got, "would send  line 4") {
		t.Errorf("dry run output:\n%s", got)
	}

	bad := writeFileIn(t, "name,iban,reference,amount,currency\nA,GB82WEST12345698765432,r,1.00,GBP\nB,GB82WEST12345698765432,r,abc,GBP\n")
	out.Reset()
	err := Command(context.Background(), s, &cmdutil.Global{}, bad, &CommandOptions{JSON: true})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("err = %v", err)
	}
	var res struct {
		Sent     int   `json:"sent"`
		BadLines []int `json:"bad_lines"`
	}
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil || res.Sent != 0 || !slices.Equal(res.BadLines, []int{3}) {
		t.Errorf("json %s (%v)", out.String(), jerr)
	}
}

func TestSummaryNamesEveryRowNeedingAttention(t *testing.T) {
	sum := &batch.Summary{File: "/x/p.csv", Journal: "/x/p.csv.journal", Totals: map[string]int64{"GBP": 3000, "EUR": 100}, Watched: true,
		Rows: []batch.RowResult{
			{Line: 2, Name: "Ada", Currency: "GBP", AmountInMinor: 1000, Result: batch.ResultSettled, Sent: payout.OutcomeAccepted},
			{Line: 3, Name: "Bob", Currency: "GBP", AmountInMinor: 1000, Result: batch.ResultRejected, Sent: payout.OutcomeAccepted, Reason: "insufficient_funds"},
			{Line: 4, Name: "Cy", Currency: "GBP", AmountInMinor: 1000, Result: batch.ResultNotSent, Detail: "connection refused"},
			{Line: 5, Name: "Di", Currency: "EUR", AmountInMinor: 100, Result: batch.ResultAccepted, Sent: payout.OutcomeAccepted, PreviousRun: true},
		}}
	sum.Tally()
	var b bytes.Buffer
	if err := writeSummary(&b, sum); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"4 payout(s), €1.00 + £30.00", "accepted by the service: 3 (1 in an earlier run", "settled 1, pending 1, rejected 1, failed 0, not sent 1,",
		"line 3  Bob", "rejected: insufficient_funds", "line 4  Cy", "not sent: connection refused", "run the same command again", "journal: /x/p.csv.journal",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "line 2") || strings.Contains(got, "line 5") {
		t.Errorf("summary lists rows that need nothing:\n%s", got)
	}
}
