package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
)

// pipelineError stands for an error of the payout pipeline: it names its
// own class and field.
type pipelineError struct{ class, field string }

func (e pipelineError) Error() string      { return "refused before sending" }
func (e pipelineError) ErrorClass() string { return e.class }
func (e pipelineError) ErrorField() string { return e.field }

// TestErrorJSONClassAndField: one shape for every failure; the class is
// the error's own when it names one (through any wrapping), else derived
// from the exit status and the service's answer; the field is the
// request field or the flag.
func TestErrorJSONClassAndField(t *testing.T) {
	flagErr := func(args ...string) error {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.Int("count", 0, "")
		return Exit(ExitUsage, fs.Parse(args))
	}
	for _, c := range []struct {
		err          error
		class, field string
		code         int
	}{
		{Exit(ExitNotAccepted, fmt.Errorf("payout: %w", pipelineError{"funds", ""})), "funds", "", 3},
		{Exit(ExitUsage, pipelineError{"invalid", "beneficiary_iban"}), "invalid", "beneficiary_iban", 2},
		{Exit(ExitNotAccepted, fmt.Errorf("create: %w", &api.Error{StatusCode: 400})), "refused", "", 3},
		{Exit(ExitNotAccepted, fmt.Errorf("create: %w", &api.Error{StatusCode: 503})), "unknown", "", 3},
		{Exit(ExitUsage, errors.New(`--since "soon": want 7d`)), "usage", "--since", 2},
		{flagErr("--count", "x"), "usage", "--count", 2},
		{flagErr("--nope"), "usage", "--nope", 2},
		{ErrCancelled, "cancelled", "", 4},
		{errors.New("disk full"), "failed", "", 1},
		{ErrNoProfile, "usage", "", 2},
	} {
		j := NewErrorJSON(c.err)
		field := ""
		if j.Error.Field != nil {
			field = *j.Error.Field
		}
		if j.Error.Class != c.class || field != c.field || j.ExitCode != c.code || j.Error.Message == "" {
			t.Errorf("%v: %+v field %q; want class %q field %q exit %d", c.err, j, field, c.class, c.field, c.code)
		}
	}
}

// TestReportAnswersJSONOnlyWhenStdoutIsEmpty: with --json, a failure
// that printed nothing answers with the error object on stdout; a
// command that already answered (a result, then exit 3) is not followed
// by a second object.
func TestReportAnswersJSONOnlyWhenStdoutIsEmpty(t *testing.T) {
	var out, errb bytes.Buffer
	s := &Streams{Out: &out, Err: &errb}
	w := WatchOutput(s)
	if code := Report(s, w, []string{"balances", "--json"}, Exit(ExitUsage, errors.New("--since bad"))); code != 2 {
		t.Fatalf("exit %d", code)
	}
	var j ErrorJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil || j.ExitCode != 2 || j.Error.Class != "usage" {
		t.Errorf("stdout %q: %v", out.String(), err)
	}
	if !strings.Contains(errb.String(), "paydash: --since bad") {
		t.Errorf("stderr %q", errb.String())
	}

	out.Reset()
	s = &Streams{Out: &out, Err: &errb}
	w = WatchOutput(s)
	fmt.Fprintln(s.Out, `{"accepted": false}`)
	Report(s, w, []string{"--json"}, SilentExit(ExitNotAccepted))
	if strings.Count(out.String(), "{") != 1 {
		t.Errorf("a second object after the command's own: %q", out.String())
	}

	out.Reset()
	s = &Streams{Out: &out, Err: &errb}
	w = WatchOutput(s)
	Report(s, w, []string{"balances", "--", "--json"}, errors.New("x"))
	if out.Len() != 0 {
		t.Errorf("without --json (after --): stdout %q", out.String())
	}
}

// TestReportEscapesTheMessage: an error quoting the service's answer
// cannot drive the terminal; its line breaks stay.
func TestReportEscapesTheMessage(t *testing.T) {
	var out, errb bytes.Buffer
	s := &Streams{Out: &out, Err: &errb}
	Report(s, WatchOutput(s), nil, errors.New("refused: \x1b]52;c;cGF5\x07 detail\nnext line"))
	if strings.ContainsAny(errb.String(), "\x1b\x07") || !strings.Contains(errb.String(), "\nnext line") {
		t.Errorf("stderr %q", errb.String())
	}
}
