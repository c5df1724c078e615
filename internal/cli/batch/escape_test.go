package batch

import (
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/batch"
)

// TestServiceTextsInTheSummaryAreShownEscaped: the CSV's names are
// checked before sending (api's character set), but what the service
// and the relay say about a row is not: a refusal's detail, a failure
// reason from a webhook, and the name of a matching payout in the
// service's report. Each holding a terminal escape (clear screen), a
// bidi override or a newline that would forge a row of its own reaches
// the operator's terminal escaped, in the summary and in the dry run,
// never as the raw bytes.
func TestServiceTextsInTheSummaryAreShownEscaped(t *testing.T) {
	const hostile = "x\x1b[2J\u202eevil\n  line 9  Forged  £1.00  settled"
	fromReport := &payout.Payment{TransactionID: "0b0b0b0b-1111-4222-8333-444444444444", At: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
		Name: "Ada" + hostile, IBAN: ibanGB, Reference: "R-3", Currency: "GBP", AmountInMinor: 300, Where: payout.FromReport}
	rows := []batch.RowResult{
		{Line: 2, Name: "Ada", Currency: "GBP", AmountInMinor: 100, Result: batch.ResultRejected, Sent: payout.OutcomeRefused, Detail: "refused: " + hostile},
		{Line: 3, Name: "Bea", Currency: "GBP", AmountInMinor: 200, Result: batch.ResultFailed, Reason: "scheme" + hostile},
		{Line: 4, Name: "Cy", Currency: "GBP", AmountInMinor: 300, Result: batch.ResultDuplicate, DuplicateOf: fromReport},
	}
	for _, dry := range []bool{false, true} {
		sum := &batch.Summary{File: "f.csv", Journal: "f.csv.journal", DryRun: dry, Rows: rows, Totals: map[string]int64{"GBP": 600},
			Counts: batch.Counts{Rows: 3, Rejected: 1, Failed: 1, Duplicate: 1}}
		var b strings.Builder
		if err := writeSummary(&b, sum); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\u202e") || strings.Contains(out, "\n  line 9") {
			t.Errorf("dry run %v printed a raw escape:\n%q", dry, out)
		}
		if !strings.Contains(out, `Ada`+`x\x1b[2J\u202eevil`) {
			t.Errorf("dry run %v does not show the report's name escaped:\n%q", dry, out)
		}
		if !dry && (!strings.Contains(out, `refused: x\x1b[2J`) || !strings.Contains(out, `scheme`+`x\x1b[2J`)) {
			t.Errorf("the summary does not show the service's texts escaped:\n%q", out)
		}
	}
}
