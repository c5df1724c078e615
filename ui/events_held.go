package ui

import (
	"slices"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// maxEvents bounds the events kept in memory; the relay keeps them all
// (`paydash events tail --since 0` reads them back).
const maxEvents = 20000

// heldEvents is the Events view's memory: the newest events in a ring of
// fixed size, each with its filter text made once when it arrives, and
// the numbers of those that pass the view's filters. Events are numbered
// from 0 in arrival order for the whole session ("absolute" numbers), so
// dropping the oldest never renumbers what is shown.
type heldEvents struct {
	limit int                 // ring size; maxEvents outside tests
	ring  []relayclient.Event // event n is ring[n%limit]
	// hay is each held event's lowercase filter text (type, ids,
	// summary), parallel to ring: a keystroke then costs a substring
	// search per event, no JSON decoding and no lowercasing.
	hay []string
	// heads is each held event's delivery headers as name, value
	// pairs, parallel to ring (whose events keep none): a third of the
	// memory of a map per event. full puts them back.
	heads [][]string
	// sums is, for an event whose summary reads its JSON body (an
	// external payment's amount), that summary, made once when it
	// arrives rather than on every frame; "" for the others, whose
	// summary is a few of their fields.
	sums  []string
	total int // events received this session; held are [total-len(ring), total)
	// names interns the strings every event repeats (type, family,
	// state, header names), so 20,000 held events share one copy.
	names map[string]string

	shown []int // absolute numbers of the held events that pass, ascending
	// shownBy is the filter shown was computed with: a query that
	// contains its text (the text grew) only narrows shown.
	shownBy eventFilter
	// narrowed are the filters shown narrowed from as the text grew,
	// oldest first, each with its list as it was then: rubbing a
	// character out goes back to one and checks only the events that
	// came since, not every held event.
	narrowed []narrowStep
}

// narrowStep is a filter's shown list as of total events.
type narrowStep struct {
	by    eventFilter
	shown []int
	total int
}

// maxNarrowed bounds the filters kept to go back to (a pasted id is one
// step, each character typed another).
const maxNarrowed = 64

// eventFilter is what the Events view shows: one type ("" any), only
// events whose forward failed, and text (lowercase) in the summary.
type eventFilter struct {
	typ        string
	failedOnly bool
	q          string
}

func newHeldEvents(limit int) heldEvents { return heldEvents{limit: limit, names: map[string]string{}} }

// maxNames bounds the interned strings: a stream of made-up types from a
// hostile sender stops being interned, it does not grow the table.
const maxNames = 256

func (h *heldEvents) intern(s string) string {
	if c, ok := h.names[s]; ok {
		return c
	}
	if len(h.names) < maxNames && len(s) <= 64 {
		h.names[s] = s
	}
	return s
}

// compact makes ev share the strings every event repeats, and takes its
// headers out as name, value pairs (sorted by name). The header values
// that differ per event (signature, timestamp) are kept as they came;
// content type and user agent are the same on every delivery.
func (h *heldEvents) compact(ev *relayclient.Event) (heads []string) {
	ev.Type, ev.Family, ev.State, ev.Reason = h.intern(ev.Type), h.intern(ev.Family), h.intern(ev.State), h.intern(ev.Reason)
	ev.Path = h.intern(ev.Path)
	if len(ev.Headers) == 0 {
		ev.Headers = nil
		return nil
	}
	var names [8]string // a delivery carries four: no allocation for the sort
	keys := names[:0]
	for k := range ev.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	heads = make([]string, 0, 2*len(keys))
	for _, k := range keys {
		v := ev.Headers[k]
		if k == "Content-Type" || k == "User-Agent" {
			v = h.intern(v)
		}
		heads = append(heads, h.intern(k), v)
	}
	ev.Headers = nil
	return heads
}

// full is held event n as the relay sent it, its headers put back (for
// the inspector and copying them, not for every frame).
func (h *heldEvents) full(n int) *relayclient.Event {
	ev := *h.at(n)
	if pairs := h.heads[n%h.limit]; len(pairs) > 0 {
		ev.Headers = make(map[string]string, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			ev.Headers[pairs[i]] = pairs[i+1]
		}
	}
	return &ev
}

// held is how many events are in memory; dropped how many older ones
// were let go (the relay still has them).
func (h *heldEvents) held() int    { return len(h.ring) }
func (h *heldEvents) dropped() int { return h.total - len(h.ring) }

// at is the event with absolute number n, which must be held.
func (h *heldEvents) at(n int) *relayclient.Event { return &h.ring[n%h.limit] }

// isHeld reports whether absolute number n is still in memory.
func (h *heldEvents) isHeld(n int) bool { return n >= h.dropped() && n < h.total }

// eventHay is the text the filter searches, lowercased once.
func eventHay(ev *relayclient.Event, summary string) string {
	return strings.ToLower(ev.Type + " " + ev.EventID + " " + ev.PayoutID + " " + summary)
}

// summary is event n's summary for the list: without the payout id when
// the list shows a Payout ID column (see listSummary).
func (h *heldEvents) summary(n int, withID bool) string {
	ev := h.at(n)
	if s := h.sums[n%h.limit]; s != "" && (withID || ev.PayoutID == "") {
		return s
	}
	return listSummary(ev, withID) // reads no body
}

// push adds one event, dropping the oldest when the ring is full, and
// checks it against the active filters. It returns whether it is shown.
func (h *heldEvents) push(ev relayclient.Event) bool {
	n := h.total
	heads := h.compact(&ev)
	sum := eventSummary(&ev)
	hay := eventHay(&ev, sum)
	if ev.Type != api.EventExternalPaymentReceived {
		sum = "" // made from its fields when shown
	}
	if len(h.ring) < h.limit {
		h.ring = append(h.ring, ev)
		h.heads = append(h.heads, heads)
		h.hay = append(h.hay, hay)
		h.sums = append(h.sums, sum)
	} else {
		i := n % h.limit
		h.ring[i], h.heads[i], h.hay[i], h.sums[i] = ev, heads, hay, sum
	}
	h.total++
	// The oldest shown may just have been overwritten.
	first := h.dropped()
	k := 0
	for k < len(h.shown) && h.shown[k] < first {
		k++
	}
	if k > 0 {
		h.shown = h.shown[k:]
	}
	if h.passes(n, h.shownBy) {
		h.shown = append(h.shown, n)
		return true
	}
	return false
}

func (h *heldEvents) passes(n int, f eventFilter) bool {
	i := n % h.limit
	ev := &h.ring[i]
	if f.typ != "" && ev.Type != f.typ {
		return false
	}
	if f.failedOnly && !forwardFailed(ev) {
		return false
	}
	return f.q == "" || strings.Contains(h.hay[i], f.q)
}

// setFilter makes shown the held events that pass f, searching as few
// as it can: when only the text grew (f's text contains the previous
// one, the rest alike) it narrows the previous matches; when f is a
// filter it narrowed from (a character rubbed out) it takes that one's
// list back and checks the events that came since; otherwise it
// searches every held event.
func (h *heldEvents) setFilter(f eventFilter) {
	was := h.shownBy
	if f == was {
		return
	}
	for i := len(h.narrowed) - 1; i >= 0; i-- {
		if st := h.narrowed[i]; st.by == f {
			clear(h.narrowed[i:])
			h.narrowed = h.narrowed[:i]
			first := h.dropped()
			k, _ := slices.BinarySearch(st.shown, first)
			h.shown = st.shown[k:]
			for n := max(st.total, first); n < h.total; n++ {
				if h.passes(n, f) {
					h.shown = append(h.shown, n)
				}
			}
			h.shownBy = f
			return
		}
	}
	if f.typ == was.typ && f.failedOnly == was.failedOnly && strings.Contains(f.q, was.q) {
		if len(h.narrowed) == maxNarrowed {
			h.narrowed = slices.Delete(h.narrowed, 0, 1)
		}
		h.narrowed = append(h.narrowed, narrowStep{by: was, shown: h.shown, total: h.total})
		next := make([]int, 0, len(h.shown)/4)
		for _, n := range h.shown {
			if h.passes(n, f) {
				next = append(next, n)
			}
		}
		h.shown, h.shownBy = next, f
		return
	}
	clear(h.narrowed)
	h.narrowed = h.narrowed[:0]
	h.shown = h.shown[:0]
	for n := h.dropped(); n < h.total; n++ {
		if h.passes(n, f) {
			h.shown = append(h.shown, n)
		}
	}
	h.shownBy = f
}

// findSeq is the absolute number of the held event with relay sequence
// number seq (events arrive in seq order), or -1.
func (h *heldEvents) findSeq(seq uint64) int {
	first := h.dropped()
	lo, hi := first, h.total
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if h.at(mid).Seq < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < h.total && h.at(lo).Seq == seq {
		return lo
	}
	return -1
}

// setForward records how forwarding event n went: its summary and
// filter text change with it, so it is checked again against the
// filter shown (the lists kept to go back to checked it as it was, and
// are let go).
func (h *heldEvents) setForward(n int, fr *relayclient.ForwardResult) {
	i := n % h.limit
	ev := &h.ring[i]
	ev.Forward = fr
	sum := eventSummary(ev)
	h.hay[i] = eventHay(ev, sum)
	if ev.Type == api.EventExternalPaymentReceived {
		h.sums[i] = sum
	}
	clear(h.narrowed)
	h.narrowed = h.narrowed[:0]
	at, in := slices.BinarySearch(h.shown, n)
	switch pass := h.passes(n, h.shownBy); {
	case pass && !in:
		h.shown = slices.Insert(h.shown, at, n)
	case !pass && in:
		h.shown = slices.Delete(h.shown, at, at+1)
	}
}

// types lists the event types held, sorted.
func (h *heldEvents) types() []string {
	seen := map[string]bool{}
	var out []string
	for i := range h.ring {
		if t := h.ring[i].Type; !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// shownIndexOfSeq is the line of the shown event with relay sequence
// number seq, or -1: how a selection kept by id finds its row again.
func (h *heldEvents) shownIndexOfSeq(seq uint64) int {
	for i, n := range h.shown {
		if h.at(n).Seq == seq {
			return i
		}
	}
	return -1
}

// countLine is the start of the Events view's status line: how many
// events pass the filters of how many held, and how many older ones were
// dropped and how to read them (the relay keeps them).
func (h *heldEvents) countLine() string {
	s := itoa(len(h.shown)) + " of " + itoa(h.held()) + " events"
	if d := h.dropped(); d > 0 {
		s += " · " + itoa(d) + " older dropped: events tail --since 0"
	}
	return s
}
