// Package users is the team hub's list of people: who they are, the
// SHA-256 of their token (never the token) and what each may do. The list
// lives in a TOML file an administrator edits with `paydash relay user`;
// the hub reads it at start and again on SIGHUP.
//
// It imports nothing of paydash. The hub, the server commands and the
// administrator's `paydash relay user` import it; a client never does.
package users
