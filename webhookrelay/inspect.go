package webhookrelay

import (
	"encoding/json"
	"net/http"

	"github.com/paydash/paydash/internal/platform/bearer"
	"github.com/paydash/paydash/webhookrelay/relayclient"
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
	limit, ok := readLimit(w, q)
	if !ok {
		return
	}
	list, last, err := r.store.attempts(since, limit, q.Get("event_id"))
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
	out, ok := r.storedEvent(w, req)
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// maxResendReport bounds the body of POST /events/{id}/resends: an answer
// with its first 2 KiB of body and its headers.
const maxResendReport = 32 << 10

// handleResendReport is POST /events/{event_id}/resends: a client that
// resent the event (the relay never posts to a URL named at run time)
// reports the handler's answer, which is kept in the attempt log with
// the event's forwards, so every reader sees it.
func (r *Relay) handleResendReport(w http.ResponseWriter, req *http.Request) {
	if !r.allowWrite(w, req) {
		return
	}
	if err := requireJSON(req); err != nil {
		status, reason, detail := refusalReason(err)
		writeProblem(w, status, reason, detail)
		return
	}
	if r.store == nil {
		writeProblem(w, http.StatusNotFound, "no_forwarding", "forwarding is not available in clustered mode, so there is no attempt log")
		return
	}
	var ans relayclient.Answer
	if err := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxResendReport)).Decode(&ans); err != nil {
		writeProblem(w, http.StatusBadRequest, RejectBadJSON, "the body must be the handler's answer as JSON: "+err.Error())
		return
	}
	if len(ans.Body) > relayclient.AnswerBodyMax {
		ans.Body, ans.BodyTruncated = ans.Body[:relayclient.AnswerBodyMax], true
	}
	ev, ok := r.storedEvent(w, req)
	if !ok {
		return
	}
	a := &Attempt{Kind: relayclient.AttemptResend, EventSeq: ev.Seq, EventID: ev.EventID, Type: ev.Type, Final: true, Answer: ans}
	if err := r.store.logResend(a); err != nil {
		writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be written right now; retry")
		return
	}
	writeJSON(w, http.StatusCreated, a)
}

// allowWrite authorises a write every reader sees. Without team mode
// the relay's one token writes as it reads; in team mode (ReaderAllowed)
// only a token WriterAllowed accepts, sent in the Authorization header,
// does: a reader, or the relay's shared token, writes no forged answer
// into the log everyone reads.
func (r *Relay) allowWrite(w http.ResponseWriter, req *http.Request) bool {
	if !r.allowRead(w, req) {
		return false
	}
	if r.cfg.ReaderAllowed == nil {
		return true
	}
	got, _ := bearer.FromRequest(req)
	if got == "" || r.cfg.WriterAllowed == nil || !r.cfg.WriterAllowed(got) {
		writeProblem(w, http.StatusForbidden, "write_role_missing",
			"reporting a resend writes into the attempt log every reader sees: it needs your own token with the request role (sent as Authorization: Bearer); the relay's shared token and view-only tokens only read")
		return false
	}
	return true
}

// storedEvent reads the event named by the path's {id}, answering 404 or
// 503 itself when it cannot.
func (r *Relay) storedEvent(w http.ResponseWriter, req *http.Request) (*relayclient.StoredEvent, bool) {
	id := req.PathValue("id")
	seq, _, found, err := r.be.lookup(req.Context(), id)
	if err != nil {
		writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be read right now; retry")
		return nil, false
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
			return nil, false
		}
	}
	if out == nil {
		writeProblem(w, http.StatusNotFound, "no_such_event", "the relay holds no event with this event_id (never received, or retention dropped it)")
		return nil, false
	}
	return out, true
}
