// Package platform is the home of paydash's leaf helpers, each a package
// of one job that imports nothing of paydash outside internal/platform:
// clock (injected time), termtext (text made safe for a terminal),
// httpguard (refusing what only a browser would send to a local server),
// wsfan (websocket fan-out), natsstream (what the JetStream stores share)
// and natstest (real JetStream clusters for tests). It holds no code of
// its own.
//
// Any package may import a leaf; a leaf never imports api, a server or a
// client.
package platform
