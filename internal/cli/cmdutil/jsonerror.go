package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/payout"
)

// A command run with --json answers in JSON, failures included: a script
// reading stdout must never find it empty. Every failure has one shape,
//
//	{"error": {"class": "...", "message": "...", "field": "..."}, "exit_code": N}
//
// where class says what kind of failure it was, so a script can act on
// it without reading the message.

// Error classes paydash gives itself when an error names none.
const (
	ClassUsage     = "usage"     // the command line was wrong (exit 2)
	ClassInvalid   = "invalid"   // the request broke a rule of the interface
	ClassRefused   = "refused"   // refused: nothing was created
	ClassUnknown   = "unknown"   // no definite answer: it may have been created
	ClassCancelled = "cancelled" // the person declined
	ClassFailed    = "failed"    // anything else
)

// classed is implemented by errors that know their class, such as the
// payout pipeline's ("refused", "unknown", "funds", "duplicate",
// "no_account", "invalid"). A local interface keeps cmdutil from
// depending on the package that defines them.
type classed interface{ ErrorClass() string }

// fielded is implemented by errors about one field of a request.
type fielded interface{ ErrorField() string }

// ErrorJSON is the JSON answer of a failed command.
type ErrorJSON struct {
	Error    ErrorDetail `json:"error"`
	ExitCode int         `json:"exit_code"`
}

// ErrorDetail is the "error" member of ErrorJSON. Field is null when the
// failure is not about one field.
type ErrorDetail struct {
	Class   string  `json:"class"`
	Message string  `json:"message"`
	Field   *string `json:"field"`
}

// NewErrorJSON describes err (not nil) as ErrorJSON.
func NewErrorJSON(err error) ErrorJSON {
	code := ExitCode(err)
	d := ErrorDetail{Class: ErrorClass(err), Message: err.Error()}
	if errors.Is(err, ErrNoProfile) {
		d.Message = "no paydash profile is configured; run paydash demo, or paydash config init and edit the file"
	}
	var f fielded
	if errors.As(err, &f) && f.ErrorField() != "" {
		field := f.ErrorField()
		d.Field = &field
	}
	return ErrorJSON{Error: d, ExitCode: code}
}

// ErrorClass is the class of err: its own when it names one, else one
// derived from its exit code and the service's answer it wraps.
func ErrorClass(err error) string {
	var c classed
	if errors.As(err, &c) && c.ErrorClass() != "" {
		return c.ErrorClass()
	}
	switch code := ExitCode(err); {
	case code == ExitUsage:
		return ClassUsage
	case code == ExitCancelled:
		return ClassCancelled
	case errors.As(err, new(*api.Error)) || errors.Is(err, api.ErrNotSent):
		// The service's answer (or none): the payout pipeline's one
		// classifier says refused or unknown.
		return payout.Classify(err).Outcome
	case code == ExitNotAccepted:
		return ClassRefused
	}
	return ClassFailed
}

// WantsJSON reports whether the command line asks for JSON output
// (--json before any "--"), read from the words themselves so a command
// line that failed to parse still gets its answer in JSON.
func WantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			b, err := strconv.ParseBool(v)
			return err == nil && b
		}
	}
	return false
}

// OutputWatch is a writer that remembers whether anything was written
// through it, so main can tell a command that answered from one that
// left stdout empty.
type OutputWatch struct {
	W     io.Writer
	wrote bool
}

func (o *OutputWatch) Write(p []byte) (int, error) {
	if len(p) > 0 {
		o.wrote = true
	}
	return o.W.Write(p)
}

// Wrote reports whether anything was written.
func (o *OutputWatch) Wrote() bool { return o.wrote }

// WatchOutput makes s.Out an OutputWatch and returns it.
func WatchOutput(s *Streams) *OutputWatch {
	w := &OutputWatch{W: s.Out}
	s.Out = w
	return w
}

// Report tells the person about err (nil: nothing) and returns the exit
// status: "paydash: message" on stderr unless the command already said
// everything, and, when the command line asked for --json and stdout is
// still empty, the error as JSON on stdout.
func Report(s *Streams, out *OutputWatch, args []string, err error) int {
	if err == nil {
		return 0
	}
	if !IsSilent(err) {
		fmt.Fprintf(s.Err, "paydash: %v\n", err)
	}
	if WantsJSON(args) && !out.Wrote() {
		_ = WriteJSON(out, NewErrorJSON(err))
	}
	return ExitCode(err)
}
