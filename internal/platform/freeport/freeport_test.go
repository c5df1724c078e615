package freeport

import (
	"net"
	"strconv"
	"testing"
)

// An address handed out can be listened on, lies below the ephemeral
// range (so no outgoing connection takes it meanwhile) and is not
// handed out twice.
func TestAddrIsFreeBelowTheEphemeralRangeAndNeverRepeated(t *testing.T) {
	_, hi := drawRange()
	seen := map[string]bool{}
	for range 50 {
		a := Addr(t)
		if seen[a] {
			t.Fatalf("%s handed out twice", a)
		}
		seen[a] = true
		_, ps, _ := net.SplitHostPort(a)
		if p, _ := strconv.Atoi(ps); p > hi {
			t.Fatalf("%s is inside the ephemeral range (above %d)", a, hi)
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		ln.Close()
	}
}
