package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
)

// thousands renders n with comma separators: 1234567 -> "1,234,567".
func thousands(n int) string { return api.FormatCount(int64(n)) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == 0x1b {
			return false
		}
	}
	return true
}

// width is the display width of s (ANSI-aware); ASCII is the fast path
// because nearly every cell of the report is ASCII.
func width(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// fit truncates s to w cells (with "…") and pads it with spaces to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := width(s)
	if sw > w {
		if isASCII(s) {
			if w == 1 {
				return "…"
			}
			return s[:w-1] + "…"
		}
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// fitRight is fit with the text aligned to the right (numbers).
func fitRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := width(s)
	if sw > w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// rail names the payment rail of a payout account's currency.
func rail(currency string) string {
	switch currency {
	case "GBP":
		return "Faster Payments"
	case "EUR":
		return "SEPA"
	}
	return "—"
}

// clockTime formats t as HH:MM:SS in loc.
func clockTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(loc).Format("15:04:05")
}

// stamp formats t as "2006-01-02 15:04:05" in loc, or "" when zero.
func stamp(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04:05")
}

// mmss renders a countdown as M:SS (never negative).
func mmss(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second) / time.Second)
	return strconv.Itoa(s/60) + ":" + pad2(s%60)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// padLines makes s exactly h lines (cutting or adding blank lines), so the
// frame keeps its footer at the bottom whatever the view renders.
func padLines(s string, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// sparkline draws vals as ▁▂▃▄▅▆▇█ scaled from zero to their max,
// keeping the most recent w points. A flat series is a flat low line.
func sparkline(vals []int64, w int) string {
	if w <= 0 || len(vals) == 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	const bars = "▁▂▃▄▅▆▇█"
	blocks := []rune(bars)
	// From zero (or the lowest value when one is negative): a −£5 move on
	// £7.7M must look like the flat line it is, not a cliff.
	lo, hi := min(vals[0], 0), vals[0]
	for _, v := range vals {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if hi > lo {
			// Integer arithmetic on a 0..7 scale; the span fits in float64
			// exactly enough for choosing one of eight glyphs.
			i = int(float64(v-lo)/float64(hi-lo)*float64(len(blocks)-1) + 0.5)
		}
		b.WriteRune(blocks[i])
	}
	return b.String()
}

// clean makes text from outside (the service, webhooks, reports) safe to
// draw: termtext.Safe shows every control, format and bidi character
// escaped (\x1b, \u202e), so none can move the cursor, restyle the
// terminal or reorder what is shown.
func clean(s string) string { return termtext.Safe(s) }

// cleanLines is clean for multi-line text: newlines survive, tabs become
// spaces.
func cleanLines(s string) string { return termtext.Lines(s) }

// clipLines cuts every line of s to at most w cells.
// writeBody writes body's first h lines to b, each cut to w cells, then
// empty lines up to h: clipLines(padLines(body, h), w) in one pass with
// no copy of the body between (the frame is drawn after every message).
func writeBody(b *strings.Builder, body string, h, w int) {
	rest, more := body, true
	for i := range h {
		if i > 0 {
			b.WriteByte('\n')
		}
		if !more {
			continue
		}
		var l string
		l, rest, more = strings.Cut(rest, "\n")
		if width(l) > w {
			l = ansi.Truncate(l, w, "…")
		}
		b.WriteString(l)
	}
}

func clipLines(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if width(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// plural writes a count with its noun: "1 payout", "2 payouts".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// indent puts pre before every line of s.
func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// wrapText breaks s into lines of at most w cells at spaces.
func wrapText(s string, w int) string {
	if w < 10 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && width(line)+1+width(word) > w {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
