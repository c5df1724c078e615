// Package wsfan is what the relay's event stream and the hub's approvals
// feed share: fanning one writer's messages out to many websocket
// subscribers without ever blocking the writer (a subscriber whose queue
// fills is dropped and told so), and serving one websocket connection's
// keepalive, write deadlines and close.
//
// It imports nothing of paydash.
package wsfan
