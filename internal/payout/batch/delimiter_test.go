package batch

import (
	"errors"
	"strings"
	"testing"
)

// TestParseRecognisesSemicolonAndTabFiles: a spreadsheet's semicolon- or
// tab-separated export is read as the comma-separated file it stands for,
// not reported as one unknown column and five missing ones.
func TestParseRecognisesSemicolonAndTabFiles(t *testing.T) {
	comma := "name,iban,reference,amount,currency\nAda Lovelace,GB82WEST12345698765432,INV-1,\"1,234.56\",GBP\nBob,DE89370400440532013000,INV-2,0.01,EUR\n"
	want, err := Parse("/x/p.csv", []byte(comma))
	if err != nil {
		t.Fatal(err)
	}
	for name, sep := range map[string]string{"semicolon": ";", "tab": "\t"} {
		data := "name" + sep + "iban" + sep + "reference" + sep + "amount" + sep + "currency\n" +
			"Ada Lovelace" + sep + "GB82WEST12345698765432" + sep + "INV-1" + sep + "1,234.56" + sep + "GBP\n" +
			"Bob" + sep + "DE89370400440532013000" + sep + "INV-2" + sep + "0.01" + sep + "EUR\n"
		f, err := Parse("/x/p.csv", []byte(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(f.Rows) != len(want.Rows) {
			t.Fatalf("%s: %d rows, want %d", name, len(f.Rows), len(want.Rows))
		}
		for i := range f.Rows {
			if f.Rows[i].Request != want.Rows[i].Request {
				t.Errorf("%s row %d: %+v, want %+v", name, i, f.Rows[i].Request, want.Rows[i].Request)
			}
		}
	}
}

// TestParseNamesAnUnreadDelimiter: a file separated by something paydash
// does not read is refused once, naming the separator.
func TestParseNamesAnUnreadDelimiter(t *testing.T) {
	_, err := Parse("/x/p.csv", []byte("name|iban|reference|amount|currency\nAda|GB82WEST12345698765432|INV-1|1.00|GBP\n"))
	var bad *InvalidFileError
	if !errors.As(err, &bad) || len(bad.Problems) != 1 || !strings.Contains(bad.Problems[0].Message, `separated by "|"`) {
		t.Fatalf("want one problem naming \"|\", got %v", err)
	}
}
