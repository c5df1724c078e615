// Package api is the Payments, Mandates and Payouts interface as Go: the
// resources with their JSON names exactly as the interface document writes
// them, money in integer minor units, the validation rules shared by the UI
// and the sandbox, request signing, and the HTTP client.
//
// Where the interface document says "not shown", this package makes one
// choice and documents it on the type; the sandbox implements the same
// choice, so client and server agree by construction.
//
// It imports nothing of paydash but internal/platform (the clock), and
// every other package may import it: it is the bottom of the layering
// above the platform leaves. It never imports config, ui, a command or a
// server.
package api
