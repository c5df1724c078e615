// Package freeport hands tests a loopback address nothing listens on,
// for a server they start themselves (a relay run as a command, a hub
// restarted on the same address).
//
// The usual trick (listen on port 0, close, hand the port on) races
// with every outgoing connection on the machine: the kernel picks the
// local ports of those from the same ephemeral range, so under a
// parallel `go test ./...` a freed port is often taken by some other
// package's client before the server binds it ("address already in
// use"). The ports handed out here lie below that range, where the
// kernel never assigns one by itself, and are checked free before they
// are handed out; within a process none is handed out twice.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lowest is the bottom of the range ports are drawn from: above the
// well-known and registered services tests might meet on a developer's
// machine.
const lowest = 20000

var (
	mu     sync.Mutex
	handed = map[int]bool{}
)

// Addr is a 127.0.0.1 host:port nothing listens on now, outside the
// kernel's ephemeral range.
func Addr(t testing.TB) string {
	t.Helper()
	addr, err := Pick()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// Pick is Addr for callers without a testing.TB (testscript commands).
func Pick() (string, error) {
	lo, hi := drawRange()
	mu.Lock()
	defer mu.Unlock()
	for range 200 {
		p := lo + rand.IntN(hi-lo+1) //nolint:gosec // G404: a port to try, not a secret
		if handed[p] {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // in use by someone else: draw again
		}
		_ = ln.Close()
		handed[p] = true
		return ln.Addr().String(), nil
	}
	return "", fmt.Errorf("freeport: no free loopback port in %d-%d after 200 draws", lo, hi)
}

// drawRange is the range below the ephemeral one (Linux publishes it;
// elsewhere IANA's 49152-65535 is the usual ephemeral range).
func drawRange() (lo, hi int) {
	ephemeralLow := 49152
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				ephemeralLow = n
			}
		}
	}
	if ephemeralLow-1 < lowest+1000 {
		// An unusually wide ephemeral range: fall back to the band
		// above it would be no better, so take what is left below.
		return 1024, max(ephemeralLow-1, 2048)
	}
	return lowest, ephemeralLow - 1
}
