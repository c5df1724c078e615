package webhookrelay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/paydash/paydash/relayclient"
)

// Attempts is the body of GET /attempts.
type Attempts = relayclient.AttemptPage

// handleAttempts is GET /attempts?since=N&limit=M: the forward attempts
// logged after attempt seq N, with each handler's answer, for `events
// tail` and the dashboard to follow.
func (r *Relay) handleAttempts(w http.ResponseWriter, req *http.Request) {
	q, since, ok := r.readQuery(w, req)
	if !ok {
		return
	}
	if r.store == nil {
		writeProblem(w, http.StatusNotFound, "no_forwarding", "forwarding is not available in clustered mode, so there are no forward attempts")
		return
	}
	limit := defaultHistoryLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxHistoryLimit {
			writeProblem(w, http.StatusBadRequest, "bad_limit", fmt.Sprintf("limit=%q: want a number from 1 to %d", s, maxHistoryLimit))
			return
		}
		limit = n
	}
	list, last, err := r.store.attempts(since, limit)
	if err != nil {
		writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be read right now; retry")
		return
	}
	page := Attempts{Attempts: list, LastSeq: last, NextSince: since}
	if len(list) > 0 {
		page.NextSince = list[len(list)-1].Seq
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, page)
}

// handleEvent is GET /events/{event_id}: one stored event with its body
// byte for byte (base64 in "raw": JSON would re-encode it), which resend
// and `events show --raw` need.
func (r *Relay) handleEvent(w http.ResponseWriter, req *http.Request) {
	if !r.allowRead(w, req) {
		return
	}
	id := req.PathValue("id")
	seq, _, found, err := r.be.lookup(req.Context(), id)
	if err != nil {
		writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be read right now; retry")
		return
	}
	var out *relayclient.StoredEvent
	if found && seq > 0 {
		_, err = r.be.scanRaw(seq-1, func(s uint64, rec []byte) (bool, error) {
			if s == seq {
				e, err := decodeRecord(rec)
				if err != nil {
					return false, err
				}
				e.Seq = s
				out = &relayclient.StoredEvent{Event: e, Raw: e.Body}
			}
			return false, nil
		})
		if err != nil {
			writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be read right now; retry")
			return
		}
	}
	if out == nil {
		writeProblem(w, http.StatusNotFound, "no_such_event", "the relay holds no event with this event_id (never received, or retention dropped it)")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
