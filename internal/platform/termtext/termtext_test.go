package termtext

import (
	"strings"
	"testing"
)

func TestSafeEscapesEveryClassThatDrivesATerminal(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain ASCII", "O'Brien & Co.", "O'Brien & Co."},
		{"accents and scripts", "Müller GmbH · Zoë · 山田", "Müller GmbH · Zoë · 山田"},
		{"ESC CSI clears the screen", "Ada\x1b[2J", `Ada\x1b[2J`},
		{"OSC 52 writes the clipboard", "\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`},
		{"C0 newline and tab", "a\nb\tc\r", `a\x0ab\x09c\x0d`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"C1 CSI as one rune", "a\u009b2Jb", `a\x9b2Jb`},
		{"bidi override", "GB29\u202e4321", `GB29\u202e4321`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"zero width space", "a\u200bb", `a\u200bb`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"tag character", "a\U000E0041b", `a\U000e0041b`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Safe(c.in)
			if got != c.want {
				t.Fatalf("Safe(%q) = %q, want %q", c.in, got, c.want)
			}
			for _, r := range got {
				if Unsafe(r) {
					t.Fatalf("Safe(%q) still holds %U", c.in, r)
				}
			}
		})
	}
}

func TestLinesKeepsNewlinesOnly(t *testing.T) {
	got := Lines("{\n\t\"name\": \"x\x1b[31m\"\r\n}")
	want := "{\n    \"name\": \"x\\x1b[31m\"\\x0d\n}"
	if got != want {
		t.Fatalf("Lines = %q, want %q", got, want)
	}
}

func TestSafeTextIsNotCopied(t *testing.T) {
	s := strings.Repeat("Müller GmbH ", 10)
	if allocs := testing.AllocsPerRun(100, func() { _ = Safe(s) }); allocs != 0 {
		t.Fatalf("Safe allocated %v times for text that needs no escape", allocs)
	}
}

func FuzzSafeLeavesNothingUnsafe(f *testing.F) {
	f.Add("Ada\x1b[2J\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Safe(s) {
			if Unsafe(r) {
				t.Fatalf("Safe(%q) holds %U", s, r)
			}
		}
		for _, r := range Lines(s) {
			if r != '\n' && Unsafe(r) {
				t.Fatalf("Lines(%q) holds %U", s, r)
			}
		}
	})
}

func TestShortIDCutsSafeTextAtEightCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"":                                     "",
		"3f2a9c1e":                             "3f2a9c1e",
		"3f2a9c1e-77d0-4b1a-9c1e-77d03f2a9c1e": "3f2a9c1e…",
		"ÿÿÿÿÿÿÿÿÿ":                            "ÿÿÿÿÿÿÿÿ…", // runes, never half of one
		"\x1b[2Jabcdef":                        `\x1b[2Ja…`,
	} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}
