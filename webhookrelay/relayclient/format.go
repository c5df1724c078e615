package relayclient

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paydash/paydash/internal/platform/termtext"
)

// Summary is a one-line human summary of the event, e.g.
// "payout 3f2a9c1e… settled" or "payout 9c1e77d0… rejected: insufficient_funds".
func (e Event) Summary() string {
	var b strings.Builder
	switch {
	case e.PayoutID != "":
		b.WriteString("payout ")
		b.WriteString(termtext.ShortID(e.PayoutID))
		b.WriteByte(' ')
		if e.State != "" {
			b.WriteString(termtext.Safe(e.State))
		} else {
			b.WriteString(orDash(e.Type))
		}
	case e.State != "":
		b.WriteString("payout ")
		b.WriteString(termtext.Safe(e.State))
	default:
		t := e.Type
		if t == "" {
			t = "untyped"
		}
		b.WriteString(strings.ReplaceAll(termtext.Safe(t), "_", " "))
		if e.Family == FamilyUnknown {
			b.WriteString(" (unknown event)")
		}
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(termtext.Safe(e.Reason))
	}
	return b.String()
}

// tailTypeWidth is the length of the longest event type the interface
// names (external_payment_received).
const tailTypeWidth = len("external_payment_received")

// TailLine is the one-line form `paydash events tail` prints: received time
// (UTC, seconds), type, event id, payout id and state (with the reason when
// there is one), separated by two spaces, the type padded so columns line
// up; missing fields are "-".
//
//	2026-11-21T10:15:30Z  payout_settled             <event_id>  <payout_id>  settled
func TailLine(e Event) string {
	state := e.State
	if e.Reason != "" {
		state = orDash(state) + ": " + e.Reason
	}
	// The type is padded to the longest known type name so the ids line up
	// down the page as events of different types stream by.
	// The seq comes first: it is what --since takes to resume after it.
	return strings.Join([]string{
		strconv.FormatUint(e.Seq, 10),
		e.ReceivedAt.UTC().Truncate(time.Second).Format(time.RFC3339),
		fmt.Sprintf("%-*s", tailTypeWidth, orDash(e.Type)), orDash(e.EventID), orDash(e.PayoutID), orDash(state),
	}, "  ")
}

// orDash is s escaped for a terminal line (termtext.Safe: event fields
// come from whoever can post to the relay and must not drive the
// terminal they are printed on), or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return termtext.Safe(s)
}
