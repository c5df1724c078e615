package headless

import "github.com/paydash/paydash/internal/cli/cmdutil"

// ErrorClass: a request that breaks a rule of the interface was refused by
// paydash before sending.
func (e *ProblemsError) ErrorClass() string {
	if len(e.Problems) == 0 {
		return cmdutil.ClassUsage
	}
	return cmdutil.ClassInvalid
}

// ErrorField is the request field of the first problem (a script fixes
// one at a time; the message lists them all).
func (e *ProblemsError) ErrorField() string {
	if len(e.Problems) == 0 {
		return ""
	}
	return e.Problems[0].Field
}
