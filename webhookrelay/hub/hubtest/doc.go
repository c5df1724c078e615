// Package hubtest sets up team mode for tests, as net/http/httptest does
// for servers: the sandbox service over loopback with the hub's signing
// key registered, a users file of people with their tokens, the config
// file of the hub's profile and each person's payouts_via_relay profile,
// and, for tests without the binary, the hub itself in process.
//
// It is for tests only; nothing else imports it.
package hubtest
