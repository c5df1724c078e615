package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/paydash/paydash/api"
)

// ProblemTypeBase prefixes every problem "type"; the slug after it names
// the error (see the package doc for the list).
const ProblemTypeBase = "https://paydash.dev/problems/"

// problem is an RFC 9457 problem document, and the error every handler
// returns for a failed request.
type problem struct {
	Type    string              `json:"type"`
	Title   string              `json:"title"`
	Status  int                 `json:"status"`
	Detail  string              `json:"detail,omitempty"`
	TraceID string              `json:"trace_id"`
	Errors  map[string][]string `json:"errors,omitempty"`
	// OAuth 2.0 (RFC 6749 section 5.2) members, set by the token endpoint
	// only, so standard OAuth clients read the error too.
	OAuthError       string `json:"error,omitempty"`
	OAuthDescription string `json:"error_description,omitempty"`

	header http.Header
}

func (p *problem) Error() string {
	if p.Detail != "" {
		return p.Title + ": " + p.Detail
	}
	return p.Title
}

func newProblem(status int, slug, title, detail string) *problem {
	return &problem{Type: ProblemTypeBase + slug, Title: title, Status: status, Detail: detail}
}

// withHeader adds a response header (WWW-Authenticate, Allow, ...).
func (p *problem) withHeader(name, value string) *problem {
	if p.header == nil {
		p.header = http.Header{}
	}
	p.header.Add(name, value)
	return p
}

func errUnauthorized(detail string) *problem {
	return newProblem(http.StatusUnauthorized, "unauthorized", "Unauthorized", detail)
}

func errInvalidSignature(detail string) *problem {
	return newProblem(http.StatusUnauthorized, "invalid_signature", "Invalid request signature", detail)
}

func errForbidden(detail string) *problem {
	return newProblem(http.StatusForbidden, "insufficient_scope", "Forbidden", detail)
}

func errBadRequest(detail string) *problem {
	return newProblem(http.StatusBadRequest, "invalid_request", "Bad request", detail)
}

// errInvalidParameters carries the errors map keyed by field path.
func errInvalidParameters(fields map[string][]string) *problem {
	p := newProblem(http.StatusBadRequest, "invalid_parameters", "Invalid parameters",
		"the request has invalid fields; see errors for what to change")
	p.Errors = fields
	return p
}

func errNotFound(detail string) *problem {
	return newProblem(http.StatusNotFound, "not_found", "Not found", detail)
}

func errConflict(slug, title, detail string) *problem {
	return newProblem(http.StatusConflict, slug, title, detail)
}

func errMethodNotAllowed(allow string) *problem {
	return newProblem(http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed",
		"this endpoint accepts "+allow).withHeader("Allow", allow)
}

// writeProblem sends p as application/problem+json with the request's
// trace id.
func writeProblem(w http.ResponseWriter, r *http.Request, p *problem) {
	p.TraceID = traceID(r)
	for k, vs := range p.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body, err := json.Marshal(p)
	if err != nil { // cannot happen: every member is a string, int or map of strings
		body = []byte(`{"title":"Internal error","status":500}`)
	}
	w.Header().Set("Content-Type", api.ContentTypeProblemJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(p.Status)
	_, _ = w.Write(body)
}

// writeJSON sends v as application/json.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	writeRawJSON(w, status, body)
	return nil
}

func writeRawJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", api.ContentTypeJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
