// Package dashboard opens the terminal dashboard on a service and, when
// one is configured, a relay's live event stream: what `paydash` does with
// a profile and what `paydash demo` does on its sandbox.
//
// A client: it may import ui, cmdutil, config, internal/payout and the
// relay's and the hub's client packages; never a server.
package dashboard
