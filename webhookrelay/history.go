package webhookrelay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// History limits: a page holds at most maxHistoryLimit events, and one
// request scans at most maxHistoryScan records, so a filter that matches
// rarely cannot make one request read the whole store; the caller pages on
// with since=next_since.
const (
	defaultHistoryLimit = 100
	maxHistoryLimit     = 1000
	maxHistoryScan      = 50000
)

// History is the body of GET /events.
type History struct {
	Events []Event `json:"events"`
	// NextSince is the since= for the next page: the last seq this page
	// looked at, matching or not. When it equals LastSeq there is no more.
	NextSince uint64 `json:"next_since"`
	// LastSeq is the newest seq in the store when the page was read.
	LastSeq uint64 `json:"last_seq"`
}

func parseSeq(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("since=%q is not a sequence number: give the last seq you saw, or 0 for everything", s)
	}
	return n, nil
}

// readQuery authorises a reading request and parses its since=; on
// failure it has answered already.
func (r *Relay) readQuery(w http.ResponseWriter, req *http.Request) (url.Values, uint64, bool) {
	if !r.allowRead(w, req) {
		return nil, 0, false
	}
	q := req.URL.Query()
	since, err := parseSeq(q.Get("since"))
	if err != nil {
		writeProblem(w, http.StatusBadRequest, "bad_since", err.Error())
		return nil, 0, false
	}
	return q, since, true
}

// readLimit parses a reading request's limit= (defaultHistoryLimit when
// absent); on failure it has answered already.
func readLimit(w http.ResponseWriter, q url.Values) (int, bool) {
	s := q.Get("limit")
	if s == "" {
		return defaultHistoryLimit, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxHistoryLimit {
		writeProblem(w, http.StatusBadRequest, "bad_limit", fmt.Sprintf("limit=%q: want a number from 1 to %d", s, maxHistoryLimit))
		return 0, false
	}
	return n, true
}

func (r *Relay) handleHistory(w http.ResponseWriter, req *http.Request) {
	q, since, ok := r.readQuery(w, req)
	if !ok {
		return
	}
	limit, ok := readLimit(w, q)
	if !ok {
		return
	}
	keep := relayclient.TypeFilter(q["type"])
	if pid := strings.TrimSpace(q.Get("payout_id")); pid != "" {
		byType := keep
		keep = func(e *Event) bool { return e.PayoutID == pid && (byType == nil || byType(e)) }
	}
	h := History{Events: []Event{}, NextSince: since}
	cursor := since
	for scanned := 0; len(h.Events) < limit && scanned < maxHistoryScan; {
		want := limit - len(h.Events)
		last, err := scanEvents(r.be, cursor, want, backlogPageBytes, keep, func(e Event) bool {
			h.Events = append(h.Events, e)
			return true
		})
		if err != nil {
			writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be read right now; retry")
			return
		}
		if last == cursor {
			break
		}
		// Records looked at, matching or not, count towards the scan cap.
		scanned += int(min(last-cursor, maxHistoryScan))
		cursor = last
	}
	h.NextSince = cursor
	h.LastSeq, _ = r.be.lastSeq(req.Context(), false)
	h.LastSeq = max(h.LastSeq, h.NextSince)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(h)
}
