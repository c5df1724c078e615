package batch

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const (
	ibanGB = "GB82WEST12345698765432"
	ibanDE = "DE89370400440532013000"
)

func TestParseRefusesWholeFileListingEveryBadLine(t *testing.T) {
	tests := []struct {
		name      string
		csv       string
		wantLines []int
		// wantText appear somewhere in the error, naming the column/reason.
		wantText []string
	}{
		{
			name: "bad rows among good ones",
			csv: "name,iban,reference,amount,currency\n" +
				"Ada,GB82WEST12345698765432,inv-1,10.00,GBP\n" + // 2 ok
				"Bob,GB82WEST12345698765433,inv-2,10.00,GBP\n" + // 3 bad checksum
				"Cy,DE89370400440532013000,inv-3,12.345,EUR\n" + // 4 too many decimals
				"Di,DE89370400440532013000,inv-4,5.00,EUR\n" + // 5 ok
				",DE89370400440532013000,,-1,EUR\n" + // 6 no name, no reference, negative
				"Ed,DE89370400440532013000,inv-6,1.00\n", // 7 short row
			wantLines: []int{3, 4, 6, 7},
			wantText:  []string{"line 3: iban", "line 4: amount", "line 6: name", "line 6: reference", "line 6: amount", "line 7: has 4 field(s)"},
		},
		{
			name:      "unknown currency",
			csv:       "name,iban,reference,amount,currency\nAda,GB82WEST12345698765432,r,1.00,XXX\n",
			wantLines: []int{2},
			wantText:  []string{"line 2: currency"},
		},
		{
			name: "duplicate and malformed transaction ids",
			csv: "name,iban,reference,amount,currency,transaction_id\n" +
				"Ada,GB82WEST12345698765432,r1,1.00,GBP,6f1c2a8e-3b6d-4c1e-9f7a-2d5e8b9c0a11\n" +
				"Bob,GB82WEST12345698765432,r2,1.00,GBP,6f1c2a8e-3b6d-4c1e-9f7a-2d5e8b9c0a11\n" +
				"Cy,GB82WEST12345698765432,r3,1.00,GBP,not-a-uuid\n",
			wantLines: []int{3, 4},
			wantText:  []string{"already used on line 2", "line 4: transaction_id"},
		},
		{
			name:      "missing required column",
			csv:       "name,iban,amount,currency\nAda,GB82WEST12345698765432,1.00,GBP\n",
			wantLines: []int{1},
			wantText:  []string{`missing required column "reference"`},
		},
		{
			name:      "unknown column",
			csv:       "name,iban,reference,amount,currency,colour\nAda,GB82WEST12345698765432,r,1.00,GBP,red\n",
			wantLines: []int{1},
			wantText:  []string{`unknown column "colour"`},
		},
		{
			name:      "empty file",
			csv:       "",
			wantLines: []int{1},
			wantText:  []string{"empty"},
		},
		{
			name:      "header only",
			csv:       "name,iban,reference,amount,currency\n",
			wantLines: []int{1},
			wantText:  []string{"no rows"},
		},
		{
			name: "line numbers count lines, not records",
			csv: "name,iban,reference,amount,currency\n" +
				"\"Ada\nLovelace\",GB82WEST12345698765432,r,1.00,GBP\n" + // record spans lines 2-3 (a newline is no part of a name: refused)
				"Bob,GB82WEST12345698765432,r,0,GBP\n", // line 4: zero amount
			wantLines: []int{2, 4},
			wantText:  []string{"line 2: name: contains a control character", "line 4: amount"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("payouts.csv", []byte(tc.csv))
			var bad *InvalidFileError
			if !errors.As(err, &bad) {
				t.Fatalf("Parse = %v, %v; want an *InvalidFileError", f, err)
			}
			if f != nil {
				t.Errorf("a refused file must give no rows to send, got %d", len(f.Rows))
			}
			if got := bad.Lines(); !slices.Equal(got, tc.wantLines) {
				t.Errorf("bad lines = %v, want %v\n%v", got, tc.wantLines, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "nothing was sent") {
				t.Errorf("error must say nothing was sent: %s", msg)
			}
			for _, w := range tc.wantText {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
		})
	}
}

func TestParseAcceptsGoodFiles(t *testing.T) {
	csv := "\xef\xbb\xbfCurrency, Amount ,Name,IBAN,Reference,context_code\n" +
		"gbp,\"1,234.56\",Ada Lovelace,gb82 west 1234 5698 7654 32,inv-1,\n" +
		"EUR,0.01,Bob,DE89370400440532013000,inv-2,refund\n"
	f, err := Parse("/x/payouts.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rows) != 2 {
		t.Fatalf("rows = %d, want 2", len(f.Rows))
	}
	r := f.Rows[0]
	if r.Line != 2 || r.Request.Currency != "GBP" || r.Request.AmountInMinor != 123456 ||
		r.Request.BeneficiaryIBAN != ibanGB || r.Request.ContextCode != "withdrawal" || r.Request.TransactionID != "" {
		t.Errorf("row 1 = %+v", r)
	}
	if got := f.Rows[1].Request; got.ContextCode != "refund" || got.AmountInMinor != 1 || got.Currency != "EUR" {
		t.Errorf("row 2 = %+v", got)
	}
	if tot := f.Totals(); tot["GBP"] != 123456 || tot["EUR"] != 1 {
		t.Errorf("totals = %v", tot)
	}
	other, err := Parse("/x/payouts.csv", []byte(csv+"EUR,1.00,Cy,DE89370400440532013000,inv-3,\n"))
	if err != nil {
		t.Fatal(err)
	}
	if other.SHA256 == f.SHA256 {
		t.Error("different contents must hash differently")
	}
}
