package ui

import (
	"slices"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
)

// DefaultTrackerKeepFinal is how many finished payouts of others the
// Payouts tracker keeps when the profile does not say (tracker_keep_final).
const DefaultTrackerKeepFinal = config.DefaultTrackerKeepFinal

// recentEventIDs is how many applied event ids the tracker remembers to
// ignore the relay's resends (the subscriber resumes after the last
// sequence number it saw, so a resend is one of the latest few).
const recentEventIDs = 4096

// The tracker keeps what a person follows: this profile's own payouts,
// those still in flight, and the latest keepFinal finished ones; the
// rest are dropped as they age (the report and the relay keep them).
// Everything it does per event is a map look-up or a queue push, so an
// event costs the same after 100,000 as after 100.

// kept reports whether the payout stays whatever its age: this
// profile's own (sent from this dashboard, or held by the profile's
// audit record), or one the person chose to follow from the report.
func (p *trackedPayout) kept() bool { return p.mine || p.recorded != nil || p.pinned }

func (p *trackedPayout) final() bool { return api.IsFinalState(p.state) }

// payoutOrder holds the tracked payouts oldest first. A dropped payout
// leaves a hole that compaction removes once holes are half the slice,
// so adding and dropping are O(1) amortised; rows is the newest-first
// list the view shows, rebuilt only when something changed.
type payoutOrder struct {
	order []*trackedPayout
	holes int
	rows  []*trackedPayout
	stale bool
}

func (o *payoutOrder) add(p *trackedPayout) {
	p.pos = len(o.order)
	o.order = append(o.order, p)
	o.stale = true
}

func (o *payoutOrder) remove(p *trackedPayout) {
	o.order[p.pos] = nil
	o.holes++
	o.stale = true
	if o.holes > len(o.order)/2 {
		o.order = slices.DeleteFunc(o.order, func(q *trackedPayout) bool { return q == nil })
		for i, q := range o.order {
			q.pos = i
		}
		o.holes = 0
	}
}

func (o *payoutOrder) len() int { return len(o.order) - o.holes }

// newestFirst is every tracked payout, newest first.
func (o *payoutOrder) newestFirst() []*trackedPayout {
	if o.stale || o.rows == nil {
		o.rows = o.rows[:0]
		for i := len(o.order) - 1; i >= 0; i-- {
			if p := o.order[i]; p != nil {
				o.rows = append(o.rows, p)
			}
		}
		o.stale = false
	}
	return o.rows
}

// finishedQueue orders the finished payouts of others by when they
// finished, oldest first. A payout that finishes again (a settled payout
// returned) gets a new turn; its old entry is skipped when popped.
type finishedQueue struct {
	q    []finishedTurn
	head int
	turn int
	live int // entries whose payout still has that turn
}

type finishedTurn struct {
	p    *trackedPayout
	turn int
}

func (f *finishedQueue) push(p *trackedPayout) {
	if p.finishTurn != 0 {
		f.live--
	}
	f.turn++
	p.finishTurn = f.turn
	f.q = append(f.q, finishedTurn{p, f.turn})
	f.live++
}

// pushFront queues p as if it finished before every payout queued, so
// the next pop returns it.
func (f *finishedQueue) pushFront(p *trackedPayout) {
	if p.finishTurn != 0 {
		f.live--
	}
	f.turn++
	p.finishTurn = f.turn
	e := finishedTurn{p, f.turn}
	if f.head > 0 {
		f.head--
		f.q[f.head] = e
	} else {
		f.q = slices.Insert(f.q, 0, e)
	}
	f.live++
}

// pop returns the payout that finished longest ago, or nil.
func (f *finishedQueue) pop() *trackedPayout {
	for f.head < len(f.q) {
		e := f.q[f.head]
		f.q[f.head] = finishedTurn{}
		f.head++
		if f.head > len(f.q)/2 && f.head > 64 {
			f.q = slices.Delete(f.q, 0, f.head)
			f.head = 0
		}
		if e.p.finishTurn == e.turn {
			e.p.finishTurn = 0
			f.live--
			return e.p
		}
	}
	return nil
}

// forget takes a payout out of the count (its entry is skipped later).
func (f *finishedQueue) forget(p *trackedPayout) {
	if p.finishTurn != 0 {
		p.finishTurn = 0
		f.live--
	}
}

// idWindow remembers the last n ids it was given.
type idWindow struct {
	n    int
	ring []string
	next int
	set  map[string]struct{}
}

func newIDWindow(n int) idWindow { return idWindow{n: n, set: map[string]struct{}{}} }

// add reports whether id is new, remembering it.
func (w *idWindow) add(id string) bool {
	if _, ok := w.set[id]; ok {
		return false
	}
	if len(w.ring) < w.n {
		w.ring = append(w.ring, id)
	} else {
		delete(w.set, w.ring[w.next])
		w.ring[w.next] = id
		w.next = (w.next + 1) % w.n
	}
	w.set[id] = struct{}{}
	return true
}

// noteState is called whenever a payout's state may have changed: a
// finished payout is queued for the audit record and, when it is not
// this profile's, for dropping once keepFinal newer ones finished.
func (v *trackerView) noteState(p *trackedPayout) {
	if !p.final() {
		return
	}
	if !p.outcomeRecorded {
		v.toRecord = append(v.toRecord, p)
	}
	if p.kept() {
		v.finished.forget(p)
		return
	}
	if p.finishedAs == p.state && p.finishTurn != 0 {
		return
	}
	p.finishedAs = p.state
	v.finished.push(p)
	v.trim()
}

// trim drops the finished payouts of others beyond keepFinal, oldest
// finished first. The payout under the cursor and, while the operator
// moves it, its neighbours in the list are spared: at the bound the oldest rows are the ones dropped, and
// a cursor the arrivals carried down there would otherwise jump to
// another payout under the operator's keys, or find the row j or k was
// moving to gone (issue 28, item 7). They go back to the head of the
// queue, in order, so they are the first dropped once the cursor moves
// on; the bound is exceeded by three at most.
func (v *trackerView) trim() {
	var spared []*trackedPayout
	var near []*trackedPayout
	nearKnown := false
	for v.finished.live > v.keepFinal {
		p := v.finished.pop()
		if p == nil {
			break
		}
		if p.kept() || !p.final() || v.byID[p.id] != p {
			continue // kept for another reason, or gone already
		}
		if !nearKnown {
			near, nearKnown = v.nearCursor(), true
		}
		if slices.Contains(near, p) {
			spared = append(spared, p)
			continue
		}
		v.drop(p)
	}
	for i := len(spared) - 1; i >= 0; i-- {
		v.finished.pushFront(spared[i])
	}
}

// nearCursor is the selected payout and, once the operator has moved
// the cursor with the keys, the rows above and below it in the list
// shown (none before anything was selected).
func (v *trackerView) nearCursor() []*trackedPayout {
	if v.sel.id == "" || v.byID[v.sel.id] == nil {
		return nil
	}
	if !v.navigated {
		return []*trackedPayout{v.byID[v.sel.id]}
	}
	rows := v.visible()
	for i, p := range rows {
		if p.id == v.sel.id {
			return rows[max(i-1, 0):min(i+2, len(rows))]
		}
	}
	return []*trackedPayout{v.byID[v.sel.id]}
}

func (v *trackerView) drop(p *trackedPayout) {
	delete(v.byID, p.id)
	v.payouts.remove(p)
	v.droppedFinal++
}

// touch notes a payout that is new or learned its details, for
// eachTouched (once until then).
func (v *trackerView) touch(p *trackedPayout) {
	if !p.touched {
		p.touched = true
		v.touched = append(v.touched, p)
	}
}

// eachTouched calls fn for each payout still tracked that is new or
// learned its details since the last call, and forgets them.
func (v *trackerView) eachTouched(fn func(*trackedPayout)) {
	for i, p := range v.touched {
		p.touched = false
		v.touched[i] = nil
		if v.byID[p.id] == p {
			fn(p)
		}
	}
	v.touched = v.touched[:0]
}

// indexOf is the line of payout id among the rows shown now, or -1: how
// a selection kept by id finds its row again.
func (v *trackerView) indexOf(id string) int {
	for i, p := range v.visible() {
		if p.id == id {
			return i
		}
	}
	return -1
}

// droppedNote is the line that says finished payouts were let go and
// where they are.
func (v *trackerView) droppedNote() string {
	if v.droppedFinal == 0 {
		return ""
	}
	return itoa(v.droppedFinal) + " older finished payouts dropped (latest " + itoa(v.keepFinal) +
		" kept): see 2 Report, or paydash events tail --since 0 --payout <id>"
}
