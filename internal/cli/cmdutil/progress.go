package cmdutil

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
)

// Progress draws a one-line progress indicator on Err, only when Err is a
// terminal: a bar with "n/total" when the total is known, a running count
// otherwise (a streamed report's size is not known up front). Redraws are
// throttled so a million-row report is not slowed by its own progress.
type Progress struct {
	s      *Streams
	label  string
	total  int64
	mu     sync.Mutex
	n      int64
	last   time.Time
	drawn  bool
	active bool
}

// redrawEvery is how often the indicator may redraw: fast enough to look
// alive, slow enough to cost nothing.
const redrawEvery = 80 * time.Millisecond

// NewProgress starts an indicator; total <= 0 means unknown.
func NewProgress(s *Streams, label string, total int64) *Progress {
	p := &Progress{s: s, label: label, total: total, active: s.ErrTerminal}
	p.draw(true)
	return p
}

// Set moves the indicator to n.
func (p *Progress) Set(n int64) {
	p.mu.Lock()
	p.n = n
	p.mu.Unlock()
	p.draw(false)
}

// Done clears the indicator's line so what follows starts clean.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active && p.drawn {
		fmt.Fprint(p.s.Err, "\r\x1b[2K")
	}
	p.active = false
}

func (p *Progress) draw(force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < redrawEvery && (p.total <= 0 || p.n < p.total) {
		return
	}
	p.last = now
	p.drawn = true
	fmt.Fprint(p.s.Err, "\r\x1b[2K"+p.line())
}

// line renders the indicator without drawing it.
func (p *Progress) line() string {
	var b strings.Builder
	b.WriteString(p.label)
	b.WriteString(" ")
	if p.total > 0 {
		frac := float64(p.n) / float64(p.total)
		if frac > 1 {
			frac = 1
		}
		b.WriteString(bar(frac, barWidth))
		fmt.Fprintf(&b, " %s/%s", humanize.Comma(p.n), humanize.Comma(p.total))
	} else {
		b.WriteString(humanize.Comma(p.n))
	}
	return b.String()
}

const barWidth = 30

// bar renders frac (0..1) as a bar of width cells; plain characters, so it
// reads the same with NO_COLOR and on any terminal.
func bar(frac float64, width int) string {
	full := int(frac * float64(width))
	return "[" + strings.Repeat("=", full) + strings.Repeat(" ", width-full) + "]"
}
