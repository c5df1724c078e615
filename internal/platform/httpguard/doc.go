// Package httpguard refuses the requests that only a web browser would make
// to a service listening on this machine: the relay and the sandbox are
// local servers with no login of their own, so a page the user happens to
// have open must not be able to drive them.
//
// Three checks, each a defence a browser cannot get around:
//
//   - Host: a page that rebinds its own DNS name to 127.0.0.1 (DNS
//     rebinding) still sends its own name in Host. Only loopback names,
//     IP literals the server listens on, and names the operator allows
//     (a tunnel's public host) pass.
//   - Origin: a browser stamps every cross-origin fetch and form post with
//     the page's Origin (and Sec-Fetch-Site). Requests from another origin
//     are refused unless the operator allowed that origin.
//   - Content type: a JSON endpoint refuses bodies that are not JSON, so a
//     cross-origin "simple" request (text/plain, form posts), which a
//     browser sends without asking first, never reaches a handler.
//
// Programs (curl, paydash itself, a payment service posting webhooks) send
// no Origin and a Host naming the address they dialled, so they pass.
//
// It imports nothing of paydash.
package httpguard
