// Package demo runs paydash with nothing to configure: the sandbox and the
// webhook relay in-process on free loopback ports, a generated demo
// profile (credentials and a P-521 signing key kept under the state
// directory), seeded history, light background activity so the screen is
// alive, and the dashboard on top. Quitting stops all of it: nothing is
// left running or listening.
//
// A server command: it links the sandbox server and the relay, and may
// import anything a command may. Nothing but main imports it.
package demo
