package payout

import (
	"time"

	"github.com/paydash/paydash/api"
)

// What a recorded outcome means for the money. These are the rules the
// commands, the dashboard and the pipeline read an audit record by; they
// live here so that each is stated once.

// Created reports whether an outcome shows the service holds the payout:
// accepted, the id already used for it, or a final state it reached.
// Sending the same payout again under its id is then a retry that pays
// nothing twice.
func Created(outcome string) bool {
	return outcome == OutcomeAccepted || outcome == OutcomeExisting || api.IsFinalState(outcome)
}

// Pending reports whether an outcome is not final yet (accepted, or no
// answer recorded), so its final state may still be learnt from the
// report or the relay.
func Pending(outcome string) bool {
	return outcome == "" || outcome == OutcomeAccepted || outcome == OutcomeUnknown
}

// AwaitingWebhook returns the attempts made since cutoff whose payout may
// exist and so has a final webhook to come: not refused (nothing was
// created) and not a repeat of an id already used (its webhooks belong
// to the first attempt).
func AwaitingWebhook(attempts []Attempt, cutoff time.Time) []Attempt {
	var out []Attempt
	for _, a := range attempts {
		if a.At.Before(cutoff) || a.Outcome == OutcomeRefused || a.Outcome == OutcomeExisting {
			continue
		}
		out = append(out, a)
	}
	return out
}
