// Package relayclient is what a subscriber imports of the webhook relay:
// the Event the relay stores and streams, the Subscriber that follows a
// relay's /ws stream and, across its own reconnects and relay restarts,
// resumes after the last seq it saw so it misses and repeats nothing, the
// relay's History (final states, stored events, forward attempts), its
// health, resending a stored event to a handler, and the one-line tail
// format the CLI prints events in.
//
// It may import api and internal/platform leaves (clock, termtext); never
// the relay server. ui, the payout pipeline and the commands import it,
// and so does the relay server, for the same wire types.
package relayclient
