package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/termtext"
)

// A command run with --json answers in JSON, failures included: a script
// reading stdout must never find it empty. Every failure has one shape,
//
//	{"error": {"class": "...", "message": "...", "field": "..."}, "exit_code": N}
//
// where class says what kind of failure it was, so a script can act on
// it without reading the message.

// Error classes paydash gives itself when an error names none. Those
// about a send's answer are the payout pipeline's, defined there once.
const (
	ClassUsage     = "usage"             // the command line was wrong (exit 2)
	ClassInvalid   = payout.ClassInvalid // the request broke a rule of the interface
	ClassRefused   = payout.ClassRefused // refused: nothing was created
	ClassUnknown   = payout.ClassUnknown // no definite answer: it may have been created
	ClassCancelled = "cancelled"         // the person declined
	ClassFailed    = "failed"            // anything else
)

// classed is implemented by errors that know their class, such as the
// payout pipeline's ("refused", "unknown", "funds", "duplicate",
// "no_account", "invalid") and the batch's.
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
	if field := errorField(err); field != "" {
		d.Field = &field
	}
	return ErrorJSON{Error: d, ExitCode: code}
}

// leadingFlag is a message that starts by naming its flag, as paydash's
// usage errors do ("--since \"soon\": want ...").
var leadingFlag = regexp.MustCompile(`^(--[a-z][a-z0-9-]*)\b`)

// errorField names what err is about: the request field of an error that
// says so, else the flag a flag or usage error names.
func errorField(err error) string {
	var f fielded
	if errors.As(err, &f) && f.ErrorField() != "" {
		return f.ErrorField()
	}
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		return "--" + invalid.GetFlag().Name
	}
	var missing *pflag.ValueRequiredError
	if errors.As(err, &missing) {
		return "--" + missing.GetFlag().Name
	}
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedName() != "" {
		return "--" + unknown.GetSpecifiedName()
	}
	if ExitCode(err) == ExitUsage {
		if m := leadingFlag.FindStringSubmatch(err.Error()); m != nil {
			return m[1]
		}
	}
	return ""
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
			return err != nil || b // not a bool: a field list (jsonfilter.go)
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
		// A message may quote the service's answer, a file's cell or a
		// relay's error: shown escaped, its line breaks kept.
		fmt.Fprintf(s.Err, "paydash: %s\n", termtext.Lines(err.Error()))
	}
	if WantsJSON(args) && !out.Wrote() {
		_ = WriteJSON(out, NewErrorJSON(err))
	}
	return ExitCode(err)
}

// WithMessage is cause told in other words: msg is what the person reads,
// and the chain keeps cause, so its class and field (and errors.Is/As)
// still answer for it.
func WithMessage(msg string, cause error) error { return &messageError{msg: msg, cause: cause} }

type messageError struct {
	msg   string
	cause error
}

func (e *messageError) Error() string { return e.msg }
func (e *messageError) Unwrap() error { return e.cause }
