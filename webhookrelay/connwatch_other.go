//go:build !linux

package webhookrelay

import "net"

// connWatch counts accepted connections with unread bytes on Linux (see
// connwatch_linux.go); elsewhere it counts none, and the writer waits
// only for webhooks being checked.
type connWatch struct{}

func newConnWatch() *connWatch                             { return &connWatch{} }
func (c *connWatch) listener(ln net.Listener) net.Listener { return ln }
func (c *connWatch) unread(int) int                        { return 0 }
func (c *connWatch) close()                                {}
