package batch

import "github.com/paydash/paydash/internal/payout"

// ErrorClass: a file with bad rows was refused before anything was sent.
func (e *InvalidFileError) ErrorClass() string { return payout.ClassInvalid }

// ErrorField is the column of the first problem, when it names one.
func (e *InvalidFileError) ErrorField() string {
	if len(e.Problems) == 0 {
		return ""
	}
	return e.Problems[0].Column
}
