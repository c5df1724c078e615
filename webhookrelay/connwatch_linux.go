package webhookrelay

import (
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// connWatch tells the writer how many accepted connections have bytes
// that no handler has read yet: webhooks that have reached the relay but
// wait for the Go scheduler to read them. On one core the runtime reads
// sockets only when it has nothing else to run, so during a signature
// check the next webhooks sit unread and the writer, counting only those
// being checked, committed one or two at a time. The connections are
// kept in an epoll set of their own (Go's poller keeps its own); asking
// it is one epoll_wait that does not block. The kernel drops a
// connection from the set when it is closed.
type connWatch struct {
	mu     sync.Mutex
	epfd   int // -1 when the set could not be made or is closed
	events []unix.EpollEvent
}

func newConnWatch() *connWatch {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		// Without it the writer waits only for webhooks being checked,
		// as before; nothing is lost.
		fd = -1
	}
	return &connWatch{epfd: fd, events: make([]unix.EpollEvent, 64)}
}

// listener returns ln with each accepted connection added to the watch.
func (c *connWatch) listener(ln net.Listener) net.Listener {
	if c.epfd < 0 {
		return ln
	}
	return watchedListener{Listener: ln, w: c}
}

type watchedListener struct {
	net.Listener
	w *connWatch
}

func (l watchedListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err == nil {
		l.w.add(conn)
	}
	return conn, err
}

// add watches conn for unread bytes; a connection that cannot be watched
// (not a socket of this process) is simply not counted.
func (c *connWatch) add(conn net.Conn) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.epfd < 0 {
			return
		}
		// Level-triggered: a connection counts for as long as it has
		// unread bytes.
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)} //nolint:gosec // fds fit int32
		_ = unix.EpollCtl(c.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)                  //nolint:gosec // fds fit int
	})
}

// unread is how many watched connections have bytes waiting to be read
// (closing ones, whose only news is the peer's end, do not count), up to
// limit (at most 64): the kernel's answer, and so its cost, grows with
// the number it reports, and the writer needs only "at least backlogMin"
// or "any".
func (c *connWatch) unread(limit int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epfd < 0 || limit <= 0 {
		return 0
	}
	n, err := unix.EpollWait(c.epfd, c.events[:min(limit, len(c.events))], 0)
	if err != nil {
		return 0
	}
	count := 0
	for _, ev := range c.events[:n] {
		if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
			count++
		}
	}
	return count
}

func (c *connWatch) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epfd >= 0 {
		_ = unix.Close(c.epfd)
		c.epfd = -1
	}
}
