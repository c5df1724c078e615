package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/bearer"
	"github.com/paydash/paydash/internal/platform/problem"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// Prefix is where the hub's API is mounted on the relay's listener (its
// paths are hubapi's).
const Prefix = hubapi.Prefix

// maxBody bounds a request body: a payout or a reason is small.
const maxBody = 64 << 10

// Handler serves the API. Every endpoint authenticates the caller and
// checks their role on the hub.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+hubapi.PathMe, h.withRole(users.RoleView, h.handleMe))
	mux.HandleFunc("POST "+hubapi.PathPayouts, h.withRole(users.RoleRequest, h.handleSubmit))
	mux.HandleFunc("GET "+hubapi.PathApprovals, h.withRole(users.RoleView, h.handleList))
	mux.HandleFunc("GET "+hubapi.PathApprovalsWS, h.withRole(users.RoleView, h.handleWatch))
	mux.HandleFunc("GET "+hubapi.PathApprovals+"/{id}", h.withRole(users.RoleView, h.handleShow))
	mux.HandleFunc("GET "+hubapi.PathApprovals+"/{id}/check", h.withRole(users.RoleView, h.handleCheck))
	mux.HandleFunc("POST "+hubapi.PathApprovals+"/{id}/approve", h.withRole(users.RoleApprove, h.handleApprove))
	mux.HandleFunc("POST "+hubapi.PathApprovals+"/{id}/reject", h.withRole(users.RoleApprove, h.handleReject))
	mux.HandleFunc("GET "+hubapi.PathLog, h.withRole(users.RoleView, h.handleLog))
	mux.HandleFunc("GET "+hubapi.PathOutflows, h.withRole(users.RoleView, h.handleOutflows))
	mux.HandleFunc("GET "+hubapi.PathAudit, h.withRole(users.RoleView, h.handleAudit))
	mux.HandleFunc("POST "+hubapi.PathPayments, h.withRole(users.RoleRequest, h.handlePayment))
	mux.HandleFunc("POST "+hubapi.PathBatches, h.withRole(users.RoleRequest, h.handleSubmitBatch))
	mux.HandleFunc("GET "+hubapi.PathBatches+"/{id}", h.withRole(users.RoleView, h.handleShowBatch))
	mux.HandleFunc("POST "+hubapi.PathBatches+"/{id}/approve", h.withRole(users.RoleApprove, h.handleApproveBatch))
	mux.HandleFunc("POST "+hubapi.PathBatches+"/{id}/reject", h.withRole(users.RoleApprove, h.handleRejectBatch))
	mux.HandleFunc("POST "+hubapi.PathMandates, h.withRole(users.RoleRequest, h.handleMandate))
	mux.HandleFunc(Prefix, func(w http.ResponseWriter, _ *http.Request) {
		writeProblem(w, http.StatusNotFound, "not_found", "no such hub endpoint")
	})
	return mux
}

func hashToken(t string) [32]byte { return bearer.Sum(t) }

// sharedUser is who the relay's shared token reads as.
const sharedUser = "(relay token)"

// authenticate finds who is calling. Only the Authorization header is
// read: a token in the URL ends up in proxies' and shells' histories.
// The relay's shared token reads (view) and does nothing else: a payout
// requested or approved with it would have no person behind it.
func (h *Hub) authenticate(w http.ResponseWriter, req *http.Request, role string) (users.User, bool) {
	if req.URL.Query().Has("token") {
		writeProblem(w, http.StatusBadRequest, "token_in_url", "the hub does not take tokens in the URL; send Authorization: Bearer <your token>")
		return users.User{}, false
	}
	tok, _ := bearer.FromRequest(req)
	if tok == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="paydash hub"`)
		writeProblem(w, http.StatusUnauthorized, "unauthorized", "the hub needs your own token: send Authorization: Bearer <token> (an administrator makes one with paydash relay user add)")
		return users.User{}, false
	}
	if u, ok := h.cfg.Users.Current().Authenticate(tok); ok {
		if !u.Has(role) {
			writeProblem(w, http.StatusForbidden, "role_missing", fmt.Sprintf("user %s does not hold the %s role", u.Name, role))
			return users.User{}, false
		}
		return u, true
	}
	if h.cfg.SharedToken != "" && bearer.Matches(tok, h.sharedH) {
		if role != users.RoleView {
			writeProblem(w, http.StatusForbidden, "shared_token", "the relay's shared token cannot "+role+" payouts: each person uses their own token from the users file")
			return users.User{}, false
		}
		return users.User{Name: sharedUser, Roles: []string{users.RoleView}}, true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="paydash hub"`)
	writeProblem(w, http.StatusUnauthorized, "unauthorized", "token refused: it is not in the hub's users file (removed or rotated?)")
	return users.User{}, false
}

func (h *Hub) withRole(role string, next func(http.ResponseWriter, *http.Request, users.User)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		u, ok := h.authenticate(w, req, role)
		if !ok {
			return
		}
		next(w, req, u)
	}
}

// ReaderAllowed reports whether token may read the relay's events (/ws,
// /events): any user of the hub, every role includes reading.
func (h *Hub) ReaderAllowed(token string) bool {
	u, ok := h.cfg.Users.Current().Authenticate(token)
	return ok && u.Has(users.RoleView)
}

// WriterAllowed reports whether token may write what the relay's readers
// see (a resend's answer in its attempt log): a user holding the request
// role. Neither a view-only user nor the relay's shared token writes.
func (h *Hub) WriterAllowed(token string) bool {
	u, ok := h.cfg.Users.Current().Authenticate(token)
	return ok && u.Has(users.RoleRequest)
}

func (h *Hub) handleMe(w http.ResponseWriter, _ *http.Request, u users.User) {
	writeJSON(w, http.StatusOK, hubapi.Me{Name: u.Name, Roles: u.Roles, Policy: h.cfg.Policy.Describe()})
}

// readJSON decodes a JSON body, refusing other content types (a browser
// posts forms cross-origin without asking; JSON never arrives that way).
func readJSON(w http.ResponseWriter, req *http.Request, v any) bool {
	return readJSONLimit(w, req, v, maxBody)
}

func readJSONLimit(w http.ResponseWriter, req *http.Request, v any, limit int64) bool {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if mt != "application/json" {
		writeProblem(w, http.StatusUnsupportedMediaType, "not_json", "send the body as application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, req.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeProblem(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body is larger than this endpoint's %d bytes; nothing was requested", limit))
			return false
		}
		writeProblem(w, http.StatusBadRequest, "bad_json", "the body is not the JSON expected: "+err.Error())
		return false
	}
	// Every string a client sends is bounded (api's caps by field name:
	// names and references 140, URIs 2,048, every other string 255), so
	// no field is copied into the store (a batch's file name into each
	// of its rows) at whatever size the body limit allows.
	if probs := api.ValidateLengths(v); len(probs) > 0 {
		writeProblem(w, http.StatusUnprocessableEntity, ReasonFieldInvalid, fmt.Sprintf("%v; nothing was requested", probs))
		return false
	}
	return true
}

// ReasonFieldInvalid is the refusal of a body one of whose string fields
// is too long or holds characters no field may: the detail names the
// field.
const ReasonFieldInvalid = "field_invalid"

// writeSubmitError answers a refused submission of a request or a batch
// (what): the refusal the hub worded, 409 for a transaction id another
// request holds, else 500 (logged) saying the store could not record it.
func (h *Hub) writeSubmitError(w http.ResponseWriter, err error, what string) {
	var se *errSubmit
	if errors.As(err, &se) {
		writeJSON(w, se.status, se.problem())
		return
	}
	if errors.Is(err, store.ErrDuplicateTxID) {
		writeProblem(w, http.StatusConflict, ClassDuplicate, err.Error()+"; nothing was requested")
		return
	}
	h.log.Error("approvals: submit failed", "what", what, "err", err)
	writeProblem(w, http.StatusInternalServerError, "store_failed", "the hub could not record the "+what+": "+err.Error())
}

func (h *Hub) handleSubmit(w http.ResponseWriter, req *http.Request, u users.User) {
	var sub hubapi.Submission
	if !readJSON(w, req, &sub) {
		return
	}
	res, err := h.Submit(req.Context(), u, sub)
	if err != nil {
		h.writeSubmitError(w, err, "request")
		return
	}
	status := http.StatusOK
	if res.Status == hubapi.StatusAwaitingApproval {
		status = http.StatusAccepted
	}
	writeJSON(w, status, res)
}

func (h *Hub) handleList(w http.ResponseWriter, req *http.Request, _ users.User) {
	all := req.URL.Query().Get("all") == "1"
	// Without all: what still awaits or may still need attention (the
	// live requests, read from the store's live index alone).
	list := h.cfg.Store.ListLive
	if all {
		list = h.cfg.Store.List
	}
	rs, err := list(nil)
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "store_failed", err.Error())
		return
	}
	if rs == nil {
		rs = []store.Request{}
	}
	writeJSON(w, http.StatusOK, hubapi.ListResponse{Results: wireRequests(rs)})
}

func (h *Hub) handleShow(w http.ResponseWriter, req *http.Request, _ users.User) {
	r, err := h.cfg.Store.Get(req.PathValue("id"))
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wireRequest(r))
}

func (h *Hub) handleApprove(w http.ResponseWriter, req *http.Request, u users.User) {
	r, err := h.Approve(req.Context(), u, req.PathValue("id"))
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wireRequest(r))
}

// readRejectReason reads a reject body, answering 422 when it gives no
// reason: the requester is told what to correct, for a request or a batch.
func readRejectReason(w http.ResponseWriter, req *http.Request) (string, bool) {
	var b hubapi.RejectBody
	if !readJSON(w, req, &b) {
		return "", false
	}
	reason := strings.TrimSpace(b.Reason)
	if reason == "" {
		writeProblem(w, http.StatusUnprocessableEntity, "reason_required", "a rejection needs a reason (--reason TEXT), so the requester knows what to correct")
		return "", false
	}
	return reason, true
}

func (h *Hub) handleReject(w http.ResponseWriter, req *http.Request, u users.User) {
	reason, ok := readRejectReason(w, req)
	if !ok {
		return
	}
	r, err := h.Reject(u, req.PathValue("id"), reason)
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wireRequest(r))
}

func (h *Hub) handleLog(w http.ResponseWriter, req *http.Request, _ users.User) {
	q := req.URL.Query()
	after, _ := strconv.ParseUint(q.Get("after"), 10, 64)
	limit, _ := strconv.Atoi(q.Get("limit"))
	es, err := h.cfg.Store.Log(after, limit, q.Get("id"))
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "store_failed", err.Error())
		return
	}
	if es == nil {
		es = []store.Entry{}
	}
	writeJSON(w, http.StatusOK, hubapi.LogResponse{Results: wireLog(es)})
}

func (h *Hub) handleOutflows(w http.ResponseWriter, _ *http.Request, _ users.User) {
	out, err := h.cfg.Store.Outflows("")
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "store_failed", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) handleAudit(w http.ResponseWriter, _ *http.Request, _ users.User) {
	a, ok := h.cfg.Pipeline.(interface {
		AuditEntries() (string, []payout.Entry, error)
	})
	if !ok {
		writeProblem(w, http.StatusNotFound, "no_audit_record", "this hub keeps no audit record")
		return
	}
	profile, es, err := a.AuditEntries()
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "audit_record", err.Error())
		return
	}
	if es == nil {
		es = []payout.Entry{}
	}
	writeJSON(w, http.StatusOK, hubapi.AuditResponse{Profile: profile, Results: wireAudit(es)})
}

func writeStoreError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeProblem(w, http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, store.ErrOwnRequest):
		writeProblem(w, http.StatusForbidden, "own_request", err.Error())
	case errors.Is(err, store.ErrLapsed):
		writeProblem(w, http.StatusConflict, "lapsed", err.Error())
	case errors.Is(err, store.ErrNotPending), errors.Is(err, store.ErrNotApproved), errors.Is(err, store.ErrInBatch):
		writeProblem(w, http.StatusConflict, "not_pending", err.Error())
	default:
		writeProblem(w, http.StatusConflict, "refused", err.Error())
	}
}

// writeProblem answers a refusal with a problem.Body: a Problem without
// its TransactionIDUsedBy.
func writeProblem(w http.ResponseWriter, status int, reason, detail string) {
	problem.Write(w, status, reason, detail)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	problem.WriteJSON(w, status, v)
}
