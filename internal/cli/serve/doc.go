// Package serve runs paydash's servers from the command line: the
// standalone sandbox (`paydash sandbox`), the webhook relay (`paydash
// relay`) with the team hub it mounts, and `paydash relay user`, which
// edits the hub's users file; plus the small file helpers they and the
// demo share for keys and credentials kept under the state directory.
//
// A server command: it links the relay, the hub (server, store, users,
// policy, audit record) and the sandbox server, which only the server
// commands (this one and the demo, which reuses it) may do. Nothing but
// main and the demo imports it.
package serve
