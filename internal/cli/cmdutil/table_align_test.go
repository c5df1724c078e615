package cmdutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// Every table the CLI prints keeps each column in the same cells on every
// row and in its header, whatever the sign, the currency symbol or a wide
// name: a left column starts, a right column ends, at one cell.
func TestWriteTableColumnsLineUp(t *testing.T) {
	header := []string{"PAYEE", "AMOUNT", "STATUS"}
	rows := [][]string{
		{"Ada Lovelace", "-£1,234.56", "settled"},
		{"株式会社テスト", "+€0.50", "failed"},
		{"Zoë Müller", "£12.00", "authorised"},
		{"O'Brien & Co", "-€100,000.00", "submitted"},
	}
	var out bytes.Buffer
	if err := WriteTable(&out, header, rows, 1); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	all := append([][]string{header}, rows...)
	if len(lines) != len(all) {
		t.Fatalf("%d lines for %d rows:\n%s", len(lines), len(all), out.String())
	}
	right := map[int]bool{1: true}
	for col := range header {
		cell := -1
		for i, line := range lines {
			at := strings.Index(line, all[i][col])
			if at < 0 {
				t.Fatalf("line %d lacks %q:\n%s", i, all[i][col], out.String())
			}
			c := runewidth.StringWidth(line[:at]) // where it starts
			if right[col] {
				c += runewidth.StringWidth(all[i][col]) // where it ends
			}
			if cell >= 0 && c != cell {
				t.Errorf("column %s: line %d at cell %d, line 0 at %d:\n%s", header[col], i, c, cell, out.String())
			}
			cell = c
		}
	}
}
