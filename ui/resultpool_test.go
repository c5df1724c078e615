package ui

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

// TestResultPoolReusesOnlyWhatNothingReads: an array handed back is given
// out again only once no filter request or export is running, never while
// it is on screen, and only the largest.
func TestResultPoolReusesOnlyWhatNothingReads(t *testing.T) {
	var p resultPool
	if b := p.take(); b != nil { // request 1 running
		t.Fatalf("empty pool gave %d", cap(b))
	}
	small, big, screen := make([]int32, 10), make([]int32, 1000), make([]int32, 500)
	p.retire(small, screen)
	p.retire(big, screen)
	p.retire(screen, screen)     // on screen: not handed back
	p.retire(big)                // twice: kept once
	if b := p.take(); b != nil { // request 2, while request 1 may still read them
		t.Fatalf("gave an array while a request was running (cap %d)", cap(b))
	}
	p.done()
	p.done()
	b := p.take() // nothing running: the largest
	if !sameArray(b, big) || len(b) != 0 {
		t.Fatalf("took cap %d len %d, want the 1000 one emptied", cap(b), len(b))
	}
	if c := p.take(); c != nil { // only the largest is kept
		t.Fatalf("gave the small array, the one on screen or one twice (cap %d)", cap(c))
	}
	p.done()
	p.done()

	// An export holds the rows it writes; a result back on screen is
	// taken out of the pool.
	exported, again := make([]int32, 50), make([]int32, 60)
	p.hold()
	p.retire(exported)
	p.retire(again)
	p.reclaim(again)
	if c := p.take(); c != nil {
		t.Fatalf("gave an array during an export (cap %d)", cap(c))
	}
	p.done() // the request
	p.done() // the export
	if c := p.take(); !sameArray(c, exported) {
		t.Fatalf("took cap %d, want the exported array once the export finished", cap(c))
	}
	if c := p.take(); c != nil {
		t.Fatalf("gave an array back on screen (cap %d)", cap(c))
	}
}

// TestFilterRowsRightWhileRecycled types, deletes, clears and re-sorts:
// results are written into arrays of earlier ones, and after every step
// the rows on screen are exactly the matching ones, no array in the pool
// is the one on screen or the report's order, and the pool keeps no more
// than its spare.
func TestFilterRowsRightWhileRecycled(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(reportRows)}, 120, 40)
	h.key("2")
	v := &h.m.tx
	for i := 0; i < 3; i++ { // refreshes without a filter hand nothing back
		h.key("r")
		if n := len(v.results.free) + len(v.results.retired); n > 0 {
			t.Fatalf("refresh %d without a filter: the pool holds %d arrays", i, n)
		}
	}
	h.key("/")
	steps := []string{"i", "n", "v", "-", "1", "backspace", "2", "esc", "/", "a", "d", "a", "esc", "esc", "s", "/", "i", "n", "v", "-", "3", "backspace", "backspace"}
	for k, step := range steps {
		switch step {
		case "backspace", "esc", "/", "s":
			h.key(step)
		default:
			h.typeText(step)
		}
		q := strings.ToLower(strings.Join(strings.Fields(v.filter.value()), " "))
		wantIDs := want(reportRows, func(t api.Transaction) bool {
			return strings.Contains(strings.ToLower(t.BeneficiaryName+"\x00"+t.BeneficiaryIBAN+"\x00"+t.BeneficiaryReference+"\x00"+t.TransactionID), q)
		})
		if len(v.idx) != len(wantIDs) {
			t.Fatalf("step %d (%q, filter %q): %d rows, want %d", k, step, v.filter.value(), len(v.idx), len(wantIDs))
		}
		seen := map[int32]bool{}
		for _, i := range v.idx {
			if seen[i] || !wantIDs[string(v.store.ID(i))] {
				t.Fatalf("step %d (%q): row %d twice or not matching %q", k, step, i, q)
			}
			seen[i] = true
		}
		if len(v.results.free) > maxPooled {
			t.Fatalf("step %d (%q): the pool keeps %d arrays", k, step, len(v.results.free))
		}
		for _, list := range [][][]int32{v.results.free, v.results.retired} {
			for _, b := range list {
				if sameArray(b, v.idx) || sameArray(b, v.order) {
					t.Fatalf("step %d (%q): the pool holds the array on screen or the order", k, step)
				}
			}
		}
	}
	if v.results.busy != 0 {
		t.Fatalf("%d requests still counted as running", v.results.busy)
	}
}

// Opening the filter bar over a big report makes the first key's result
// array ready (every page touched) while the operator starts typing, so
// the first keystroke does not wait for the kernel to fault a fresh one
// in; the first key's rows land in it, and are the right rows. An array
// made for a report since replaced is not used.
func TestFilterBarPreparesTheFirstKeysArray(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(bigReport)}, 120, 40)
	h.key("2")
	v := &h.m.tx
	if len(v.results.free) != 0 {
		t.Fatalf("the pool holds %d arrays before any filter", len(v.results.free))
	}
	h.key("/")
	if !v.results.hasFree(bigReport) {
		t.Fatal("opening the filter bar over a big report prepared no result array")
	}
	spare := v.results.free[0]
	h.typeText("7") // keeps some rows, not all (every row kept is the base itself)
	wantIDs := want(bigReport, func(t api.Transaction) bool {
		return strings.Contains(strings.ToLower(t.BeneficiaryName+"\x00"+t.BeneficiaryIBAN+"\x00"+t.BeneficiaryReference+"\x00"+t.TransactionID), "7")
	})
	if len(v.idx) != len(wantIDs) || len(v.idx) == 0 || len(v.idx) == bigReport {
		t.Fatalf("first key: %d rows, want %d", len(v.idx), len(wantIDs))
	}
	if !sameArray(v.idx, spare) {
		t.Error("the first key's rows were not written into the prepared array")
	}
	for _, i := range v.idx {
		if !wantIDs[string(v.store.ID(i))] {
			t.Fatalf("row %d does not match", i)
		}
	}
	h.key("esc")
	h.key("esc")
	v.results.drop()
	v.spare(spareMsg{store: &report.Store{}, arr: make([]int32, bigReport)})
	if len(v.results.free) != 0 {
		t.Error("an array made for another report was taken into the pool")
	}
}
