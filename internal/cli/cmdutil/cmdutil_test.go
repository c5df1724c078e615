package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

func TestWriteTableAlignsWideCharacters(t *testing.T) {
	var b bytes.Buffer
	err := WriteTable(&b, []string{"CUR", "NAME", "AMOUNT"}, [][]string{
		{"GBP", "Ada", "£1,234.56"},
		{"EUR", "Müller & Söhne", "€7.00"},
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines: %q", lines)
	}
	// Right-aligned amounts end in the same column, whatever their bytes.
	w := runewidth.StringWidth(lines[0])
	for _, l := range lines[1:] {
		if runewidth.StringWidth(l) != w {
			t.Errorf("line %q is %d columns, header %d", l, runewidth.StringWidth(l), w)
		}
	}
}

func TestConfirm(t *testing.T) {
	tests := []struct {
		in          string
		interactive bool
		want        bool
		wantErr     error
	}{
		{"y\n", true, true, nil},
		{"YES\n", true, true, nil},
		{"\n", true, false, nil},
		{"sure\n", true, false, nil},
		{"y\n", false, false, ErrNotInteractive},
	}
	for _, tc := range tests {
		var errb bytes.Buffer
		s := &Streams{In: strings.NewReader(tc.in), Out: &bytes.Buffer{}, Err: &errb, InTerminal: tc.interactive, ErrTerminal: tc.interactive}
		got, err := Confirm(s, "Send?")
		if got != tc.want || !errors.Is(err, tc.wantErr) {
			t.Errorf("Confirm(%q, interactive=%v) = %v, %v", tc.in, tc.interactive, got, err)
		}
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		code int
	}{
		{nil, 0},
		{errors.New("boom"), ExitFailure},
		{Exit(ExitUsage, errors.New("bad flag")), ExitUsage},
		{fmt.Errorf("wrapped: %w", Exit(ExitNotAccepted, errors.New("refused"))), ExitNotAccepted},
		{ErrCancelled, ExitCancelled},
		{SilentExit(ExitNotAccepted), ExitNotAccepted},
	}
	for _, tc := range tests {
		if got := ExitCode(tc.err); got != tc.code {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
	if !IsSilent(SilentExit(1)) || IsSilent(Exit(1, errors.New("x"))) {
		t.Error("IsSilent")
	}
}

func TestOverrides(t *testing.T) {
	g := &Global{Set: []string{"base_url=https://x.example/a=b", "low_balance.GBP=500.00"}}
	ov, err := g.Overrides()
	if err != nil || ov["base_url"] != "https://x.example/a=b" || ov["low_balance.GBP"] != "500.00" {
		t.Fatalf("%v %v", ov, err)
	}
	g.Set = []string{"novalue"}
	if _, err := g.Overrides(); ExitCode(err) != ExitUsage {
		t.Errorf("err = %v", err)
	}
}

func TestProgressDrawsOnlyOnATerminal(t *testing.T) {
	for _, term := range []bool{false, true} {
		var errb bytes.Buffer
		s := &Streams{Err: &errb, ErrTerminal: term}
		p := NewProgress(s, "sending", 4)
		for i := 1; i <= 4; i++ {
			p.Set(int64(i))
		}
		p.Done()
		if got := errb.String(); term != strings.Contains(got, "4/4") {
			t.Errorf("terminal=%v: output %q", term, got)
		}
	}
}

// TestCtrlCAtAPromptCancels: ctrl+c while a confirmation waits for its
// answer ends it at once as "cancelled: nothing was sent" (exit 4), and
// an answer typed afterwards is not taken.
func TestCtrlCAtAPromptCancels(t *testing.T) {
	in, typed := io.Pipe()
	defer typed.Close()
	done := make(chan struct{})
	s := &Streams{In: in, Out: io.Discard, Err: io.Discard, InTerminal: true, OutTerminal: true, ErrTerminal: true, Done: done}
	answered := make(chan error, 1)
	go func() {
		ok, err := Confirm(s, "Send this payout?")
		if ok {
			err = errors.New("confirmed")
		}
		answered <- err
	}()
	close(done) // ctrl+c
	select {
	case err := <-answered:
		if !errors.Is(err, ErrCancelled) || ExitCode(err) != ExitCancelled {
			t.Fatalf("ctrl+c at the prompt: %v (exit %d), want cancelled (exit %d)", err, ExitCode(err), ExitCancelled)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt kept waiting after ctrl+c")
	}
}

// TestWriteTableEscapesOutsideText: a payee name or reference holding a
// terminal escape is shown escaped, never sent to the terminal.
func TestWriteTableEscapesOutsideText(t *testing.T) {
	var b strings.Builder
	if err := WriteTable(&b, []string{"PAYEE"}, [][]string{{"Ada\x1b[2J\u202eevil"}}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\u202e") || !strings.Contains(b.String(), "Ada") {
		t.Errorf("table: %q", b.String())
	}
}

// TestKeyValuesEscapesOutsideText: a summary's values hold what the
// service answered (a payment's id, status, resource token) and payee
// names; an escape in one is shown escaped, never sent to the terminal.
func TestKeyValuesEscapesOutsideText(t *testing.T) {
	var b strings.Builder
	if err := KeyValues(&b, [][2]string{{"status", "authorised\x1b]0;pwned\x07"}, {"beneficiary", "Ada\u202eevil"}}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07\u202e") || !strings.Contains(b.String(), "authorised") || !strings.Contains(b.String(), "Ada") {
		t.Errorf("summary: %q", b.String())
	}
}
