package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkTrackerKeysAtBound measures j/k on the Payouts view at its
// bound, on the live path (issue 28, item 7): `paydash demo --headless`
// (the sandbox signs each webhook, the relay verifies and streams it),
// the dashboard in a 120x40 pseudo-terminal, payouts of other operators
// arriving at PAYDASH_LIVE_RATE events a second (default 100: about 33
// payouts a second, each authorised, submitted and settled). Once the
// tracker drops older finished payouts (1,000 kept), j and k are pressed
// alternately, each timed from the write to the pty until the detail
// pane shows the payout that was the cursor's neighbour; a press whose
// neighbour is not selected within 5 s counts as not moved, and one
// whose payout is no longer selected 0.5 s later as not kept. Half the
// presses are near the newest payouts, half near the oldest, where the
// bound drops them.
//
//	go test ./e2e -run '^$' -bench TrackerKeysAtBound -benchtime 1x -timeout 10m
//	PAYDASH_LIVE_KEYS=300 go test ./e2e -run '^$' -bench TrackerKeysAtBound -benchtime 1x -timeout 20m
func BenchmarkTrackerKeysAtBound(b *testing.B) {
	if raceEnabled {
		b.Skip("figures are for the normal build")
	}
	_, rate, _ := liveKnobs(b)
	presses := 120
	if v := os.Getenv("PAYDASH_LIVE_KEYS"); v != "" {
		if _, err := fmt.Sscan(v, &presses); err != nil || presses < 1 {
			b.Fatalf("PAYDASH_LIVE_KEYS=%q: want a number of presses", v)
		}
	}
	for b.Loop() {
		runTrackerKeysAtBound(b, rate, presses)
	}
}

// detailID is the payout the detail pane shows ("payout <id> · …").
var detailID = regexp.MustCompile(`(?m)^payout ([0-9a-z-]{36}) `)

// cursorNeighbours are the payout ids (as the list shows them, perhaps
// cut with "…") on the lines above and below the cursor's, and whether
// the cursor is on the list's first or last line on screen.
func cursorNeighbours(txt string) (above, below string) {
	lines := strings.Split(txt, "\n")
	first := func(l string) string {
		f := strings.Fields(strings.TrimLeft(l, ">* "))
		if len(f) == 0 || !regexp.MustCompile(`^[0-9a-z]{8}-`).MatchString(f[0]) {
			return ""
		}
		return strings.TrimSuffix(f[0], "…")
	}
	for i, l := range lines {
		if strings.HasPrefix(l, ">") {
			if i > 0 {
				above = first(lines[i-1])
			}
			if i+1 < len(lines) {
				below = first(lines[i+1])
			}
			return above, below
		}
	}
	return "", ""
}

func runTrackerKeysAtBound(b *testing.B, rate, presses int) {
	env := isolatedEnv(b)
	addrs := startBenchDemo(b, env, false, "", time.Minute, "--activity=false", "--history", "2000", "--step-delay", "1s")
	cfg := addrs.cfg
	s := startScreen(b, env, "--config", cfg)
	s.waitText(60*time.Second, "Faster Payments", "relay: live")
	s.press("3")

	// The load runs until the presses are done.
	gen := newLoadGen("http://"+addrs.Sandbox+"/sandbox/events", rate)
	stop := make(chan struct{})
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		gen.runUntil(stop)
	}()
	defer func() { close(stop); <-loadDone }()
	start := time.Now()
	s.waitText(5*time.Minute, "older finished payouts dropped")
	atBound := time.Since(start)

	// Two phases. Near the newest payouts (g), j and k alternate with
	// arrivals above the cursor. Near the oldest (G), where the bound
	// drops a finished payout about every 30 ms, k only: the row below
	// the cursor is the next to be dropped, so a j there may find it gone
	// (rightly); the one under the cursor must never be.
	type phase struct {
		name     string
		home     string
		moved    []time.Duration
		notMoved int
		left     int // moved, then off that payout within 0.5 s
		skipped  int
	}
	phases := []*phase{{name: "newest (g), j and k", home: "g"}, {name: "oldest (G), k", home: "G"}}
	for pi, ph := range phases {
		for i := 0; i < presses/len(phases); i++ {
			if i%20 == 0 {
				s.press(ph.home) // untimed: the arrivals carry the cursor's payout along
			}
			above, below := cursorNeighbours(s.text())
			k, want := "j", below
			if pi == 1 || i%2 == 1 && above != "" || below == "" {
				k, want = "k", above
			}
			if want == "" {
				ph.skipped++
				time.Sleep(100 * time.Millisecond)
				continue
			}
			t0 := time.Now()
			if _, err := io.WriteString(s.pty, k); err != nil {
				b.Fatalf("type %q: %v", k, err)
			}
			ok := false
			for deadline := t0.Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
				if m := detailID.FindStringSubmatch(s.text()); m != nil && strings.HasPrefix(m[1], want) {
					ok = true
					break
				}
			}
			if !ok {
				ph.notMoved++
				continue
			}
			ph.moved = append(ph.moved, time.Since(t0))
			// The cursor stays on that payout while more arrive and older
			// ones are dropped.
			time.Sleep(500 * time.Millisecond)
			if m := detailID.FindStringSubmatch(s.text()); m == nil || !strings.HasPrefix(m[1], want) {
				ph.left++
			}
		}
	}
	var all []time.Duration
	notMoved, left, total := 0, 0, 0
	for _, ph := range phases {
		med, p95, worst := quantiles(ph.moved)
		fmt.Printf("tracker at bound: %d events/s, bound reached after %.0fs; %s: %d presses, %d moved to the neighbour (median %.1f ms, 95th %.1f ms, worst %.1f ms), %d did not within 5s, %d moved but were off that payout 0.5 s later, %d skipped (no neighbour on screen)\n",
			rate, atBound.Seconds(), ph.name, len(ph.moved)+ph.notMoved, len(ph.moved), med, p95, worst, ph.notMoved, ph.left, ph.skipped)
		all = append(all, ph.moved...)
		notMoved += ph.notMoved
		left += ph.left
		total += len(ph.moved) + ph.notMoved
	}
	med, _, worst := quantiles(all)
	b.ReportMetric(float64(notMoved), "presses-not-moved")
	b.ReportMetric(float64(left), "presses-not-kept")
	b.ReportMetric(med, "key-ms-median")
	b.ReportMetric(worst, "key-ms-worst")
	followed, _ := line(s.text(), "followed")
	fmt.Printf("tracker at bound: on screen: %s\n", strings.TrimSpace(followed))
	if notMoved > 0 || left > 0 {
		b.Errorf("of %d presses, %d did not move the cursor to its neighbour within 5s and %d moved it but did not keep it there", total, notMoved, left)
	}
	s.press("q")
	s.wait(30 * time.Second)
}

// runUntil is run without an end: events on the same schedule until stop
// is closed.
func (g *loadGen) runUntil(stop <-chan struct{}) {
	work := make(chan int, 256)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				resp, err := g.client.Post(g.url, "application/json", bytes.NewReader(trigger(k))) //nolint:noctx // loopback, bounded by the client's timeout
				if err != nil {
					g.failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				g.sent.Add(1)
			}
		}()
	}
	start := time.Now()
	for k := 0; ; k++ {
		if d := time.Until(start.Add(time.Duration(k) * time.Second / time.Duration(g.rate))); d > 0 {
			select {
			case <-stop:
				close(work)
				wg.Wait()
				return
			case <-time.After(d):
			}
		}
		select {
		case <-stop:
			close(work)
			wg.Wait()
			return
		case work <- k:
		}
	}
}
