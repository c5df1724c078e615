package cmdutil

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotInteractive is returned when a confirmation is needed but nobody
// can answer it (stdin or stderr is not a terminal).
var ErrNotInteractive = Exit(ExitUsage, errors.New("confirmation needed but this is not a terminal: pass --yes to confirm non-interactively"))

// Confirm asks a yes/no question on Err and reads the answer from In.
// Only "y" or "yes" (any case) confirms; anything else, including an
// empty line, declines, because sending money is the costly mistake.
func Confirm(s *Streams, question string) (bool, error) {
	if !s.Interactive() {
		return false, ErrNotInteractive
	}
	fmt.Fprintf(s.Err, "%s [y/N] ", question)
	ans, err := s.ReadLine()
	if errors.Is(err, ErrCancelled) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("read confirmation: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// ConfirmTyped asks the person to re-type want exactly (the amount, in a
// production profile): a reflexive "y" cannot send a wrong amount.
func ConfirmTyped(s *Streams, prompt, want string) (bool, error) {
	if !s.Interactive() {
		return false, ErrNotInteractive
	}
	fmt.Fprintf(s.Err, "%s ", prompt)
	ans, err := s.ReadLine()
	if errors.Is(err, ErrCancelled) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("read confirmation: %w", err)
	}
	return strings.TrimSpace(ans) == want, nil
}
