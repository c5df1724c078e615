package cmdutil

import (
	"errors"
	"fmt"
)

// Exit codes shared by every command, so scripts can tell them apart.
const (
	// ExitFailure: the command failed (bad input, service error, ...).
	ExitFailure = 1
	// ExitUsage: the command line itself was wrong.
	ExitUsage = 2
	// ExitNotAccepted: the request reached the service and was refused,
	// or a batch finished with rows that were not paid.
	ExitNotAccepted = 3
	// ExitCancelled: the person declined a confirmation prompt.
	ExitCancelled = 4
	// ExitAwaitingApproval: team mode took the payout and it awaits
	// another person's approval on the hub; nothing was sent yet.
	ExitAwaitingApproval = 5
	// ExitReadOnly: the profile is read-only (read_only = true, the
	// --readonly flag, or no signing key and no hub), so the command
	// refused before checking or sending anything. Running it again
	// cannot help; another profile can.
	ExitReadOnly = 6
)

// ExitError carries the process exit code for an error. Silent means the
// command already told the person everything (a batch summary, say) and
// main should print nothing more.
type ExitError struct {
	Code   int
	Err    error
	Silent bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit wraps err with an exit code.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// SilentExit ends the command with code and no further message.
func SilentExit(code int) error { return &ExitError{Code: code, Silent: true} }

// ErrCancelled is returned when the person answers no to a confirmation.
var ErrCancelled = Exit(ExitCancelled, errors.New("cancelled: nothing was sent"))

// ExitCode maps an error to the process exit code: 0 for nil, the code of
// an ExitError, ExitFailure otherwise.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

// IsSilent reports whether err asks main to print nothing.
func IsSilent(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) && ee.Silent
}
