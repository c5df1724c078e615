package cmdutil

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"
)

// A streaming command (events tail --json) is filtered value by value as
// it writes, not when it ends: the first result is readable while the
// command still runs.
func TestJSONFilterStreamsEachValueAsItIsWritten(t *testing.T) {
	pr, pw := io.Pipe()
	s := &Streams{Out: pw}
	second := make(chan struct{})
	var cmdErr error
	c := &cobra.Command{Use: "tail", RunE: func(*cobra.Command, []string) error {
		if err := WriteCompactJSON(s.Out, map[string]any{"type": "payout_settled", "amount_in_minor": 9007199254740993}); err != nil {
			return err
		}
		<-second
		return WriteCompactJSON(s.Out, map[string]any{"type": "payout_failed", "amount_in_minor": 1})
	}}
	var asJSON bool
	c.Flags().BoolVar(&asJSON, "json", false, "")
	finish := AddJSONFilters(c, s)
	c.SetArgs([]string{"--jq", `"\(.type) \(.amount_in_minor)"`})
	done := make(chan struct{})
	go func() {
		defer close(done)
		cmdErr = c.Execute()
		if err := finish(); err != nil && cmdErr == nil {
			cmdErr = err
		}
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	read := make(chan string)
	go func() {
		for lines.Scan() {
			read <- lines.Text()
		}
		close(read)
	}()
	select {
	case got := <-read:
		// Above 2^53: an amount must not pass through a float.
		if got != "payout_settled 9007199254740993" {
			t.Fatalf("first line %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first value was not filtered while the command ran")
	}
	close(second)
	if got := <-read; got != "payout_failed 1" {
		t.Fatalf("second line %q", got)
	}
	<-done
	if cmdErr != nil {
		t.Fatal(cmdErr)
	}
	if !asJSON {
		t.Fatal("--jq alone did not set --json")
	}
}

func TestJSONFilterRefusesWhatItCannotDo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string
		want string
	}{
		{[]string{"--jq", ".["}, `{}`, "--jq"},
		{[]string{"--json=nope"}, `[{"a":1,"b":2}]`, `unknown JSON field "nope"; the fields are: a, b`},
		{[]string{"--jq", `error("boom")`}, `{}`, "boom"},
	} {
		s := &Streams{Out: io.Discard}
		c := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(s.Out, tc.out)
			return err
		}}
		c.Flags().Bool("json", false, "")
		c.SilenceErrors, c.SilenceUsage = true, true
		finish := AddJSONFilters(c, s)
		c.SetArgs(tc.args)
		err := c.Execute()
		if ferr := finish(); ferr != nil {
			err = ferr
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want it to say %q", tc.args, err, tc.want)
		}
		var ee *ExitError
		if tc.want != "boom" && (!errors.As(err, &ee) || ee.Code != ExitUsage) {
			t.Errorf("%v: %v is not a usage error", tc.args, err)
		}
	}
}

// A raw string --jq prints (a payee's name) cannot drive the terminal:
// escaped there, exact into a pipe.
func TestJSONFilterEscapesRawStringsOnATerminal(t *testing.T) {
	for _, onTerminal := range []bool{true, false} {
		var out strings.Builder
		code := mustJQ(t, ".name")
		if err := filterJSON(strings.NewReader(`{"name":"Ada\u001b]52;c;aGk=\u0007"}`), &out, nil, code, onTerminal); err != nil {
			t.Fatal(err)
		}
		raw := strings.ContainsRune(out.String(), 0x1b)
		if raw == onTerminal {
			t.Errorf("on a terminal %v: printed %q", onTerminal, out.String())
		}
	}
}

func mustJQ(t *testing.T, expr string) *gojq.Code {
	t.Helper()
	q, err := gojq.Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gojq.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
