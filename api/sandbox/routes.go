package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/httpguard"
)

// maxBody caps request bodies; bigger ones get 413.
const maxBody = 1 << 20

// handlerFunc is a handler that reports failure as an error; a *problem is
// sent as is, anything else as a 500 that hides the cause from the caller.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// methods routes one path by method, answering 405 with Allow otherwise.
type methods map[string]handlerFunc

func (s *Sandbox) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, m methods) { mux.Handle(pattern, s.serve(m, true)) }

	// The interface. The token endpoint alone takes a form (RFC 6749);
	// every other body is JSON.
	mux.Handle("/connect/token", s.serve(methods{http.MethodPost: s.handleToken}, false))
	handle("/v3/mandates", methods{http.MethodPost: s.handleCreateMandate})
	handle("/v3/payments", methods{http.MethodPost: s.handleCreatePayment})
	handle("/v1/balances", methods{http.MethodGet: s.handleBalances})
	handle("/v1/payouts", methods{http.MethodPost: s.handleCreatePayout})
	handle("/v1/transactions", methods{http.MethodGet: s.handleTransactions})
	// Extensions.
	handle("/v3/mandates/{id}", methods{http.MethodGet: s.handleGetMandate})
	handle("/v3/payments/{id}", methods{http.MethodGet: s.handleGetPayment})
	handle("/.well-known/jwks", methods{http.MethodGet: s.handleJWKS})
	// Control.
	handle("/sandbox", methods{http.MethodGet: s.handleControlIndex})
	handle("/sandbox/{$}", methods{http.MethodGet: s.handleControlIndex})
	handle("/sandbox/fund", methods{http.MethodPost: s.handleFund})
	handle("/sandbox/webhook", methods{http.MethodGet: s.handleGetWebhook, http.MethodPut: s.handlePutWebhook})
	handle("/sandbox/payments/{id}/{action}", methods{http.MethodPost: s.handleFlowAction(kindPayment)})
	handle("/sandbox/mandates/{id}/{action}", methods{http.MethodPost: s.handleFlowAction(kindMandate)})
	handle("/sandbox/accounts/{currency}/status", methods{http.MethodPost: s.handleAccountStatus})
	handle("/sandbox/events", methods{http.MethodPost: s.handleEvents})
	handle("/sandbox/deliveries", methods{http.MethodGet: s.handleDeliveries})
	handle("/", methods{})
	return s.middleware(mux)
}

// serve adapts a method table to http.Handler and turns errors into
// problem documents. With jsonBodies, a POST or PUT whose body is not
// declared JSON is refused before its handler runs: a browser sends a
// text/plain or form POST across origins without asking first, and such a
// body must never be read as a command.
func (s *Sandbox) serve(m methods, jsonBodies bool) http.Handler {
	allow := make([]string, 0, len(m))
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut} {
		if m[method] != nil {
			allow = append(allow, method)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch h := m[r.Method]; {
		case h != nil && jsonBodies && (r.Method == http.MethodPost || r.Method == http.MethodPut):
			if err = httpguard.RequireJSON(r); err == nil {
				err = h(w, r)
			}
		case len(m) == 0:
			err = errNotFound(fmt.Sprintf("no endpoint %s; see GET /sandbox for the list", r.URL.Path))
		case h == nil && r.Method == http.MethodHead && m[http.MethodGet] != nil:
			err = m[http.MethodGet](w, r)
		case h == nil:
			err = errMethodNotAllowed(strings.Join(allow, ", "))
		default:
			err = h(w, r)
		}
		if err == nil || errors.Is(err, errResponseStarted) {
			return
		}
		var p *problem
		var refused *httpguard.Refusal
		if errors.As(err, &refused) {
			p = refusalProblem(refused)
		} else if !errors.As(err, &p) {
			s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "trace_id", traceID(r), "error", err)
			p = newProblem(http.StatusInternalServerError, "internal", "Internal error",
				"the sandbox failed to handle the request; the trace id is in its log")
		}
		writeProblem(w, r, p)
	})
}

// errResponseStarted means the handler already wrote a response (a
// report cut off mid-stream): there is nothing left to send.
var errResponseStarted = errors.New("response already started")

type traceKey struct{}

// traceID returns the request's trace id (set by middleware).
func traceID(r *http.Request) string {
	id, _ := r.Context().Value(traceKey{}).(string)
	return id
}

// refusalProblem turns a guard's refusal into the sandbox's problem.
func refusalProblem(rf *httpguard.Refusal) *problem {
	return newProblem(rf.Status, rf.Slug, rf.Title, rf.Detail)
}

// middleware gives every request a trace id (X-Trace-Id on every
// response), refuses what only a browser page would send (a foreign Host
// or Origin: see httpguard), and logs one line per request, without
// headers or bodies.
func (s *Sandbox) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		w.Header().Set(api.HeaderTraceID, id)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK, writeIdle: time.Duration(s.writeIdle.Load())}
		if read := time.Duration(s.readBody.Load()); read > 0 {
			// The server's ReadTimeout and WriteTimeout run from the first
			// byte of the request, so a busy sandbox (CPU-bound signature
			// checks under load) would cut off requests whose client did
			// nothing wrong. Re-arm them where the client is in control:
			// the body gets its full time from now, and the response's
			// clock starts at its first write (see statusRecorder).
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(read))
			_ = rc.SetWriteDeadline(time.Time{})
		}
		start := time.Now()
		r = r.WithContext(context.WithValue(r.Context(), traceKey{}, id))
		var rf *httpguard.Refusal
		if err := s.guard.Load().Check(r); errors.As(err, &rf) {
			writeProblem(rec, r, refusalProblem(rf))
		} else {
			next.ServeHTTP(rec, r)
		}
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"bytes", rec.bytes, "duration", time.Since(start), "trace_id", id)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
	// writeIdle, when set, is how long one write may take: each write
	// moves the connection's write deadline that far ahead (at most once a
	// second), so a long report streams for as long as the client keeps
	// reading, and a client that stops reading is cut off.
	writeIdle  time.Duration
	lastExtend time.Time
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.armWrite()
	r.ResponseWriter.WriteHeader(code)
}

// armWrite moves the write deadline writeIdle ahead, at most once a
// second. Not every writer supports deadlines (a recorder in tests); then
// the server's own WriteTimeout is all there is.
func (r *statusRecorder) armWrite() {
	if r.writeIdle <= 0 {
		return
	}
	if now := time.Now(); now.Sub(r.lastExtend) >= time.Second {
		r.lastExtend = now
		_ = http.NewResponseController(r.ResponseWriter).SetWriteDeadline(now.Add(r.writeIdle))
	}
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	r.armWrite()
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer (Flush).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// readBody reads a request body of at most maxBody bytes.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, newProblem(http.StatusRequestEntityTooLarge, "payload_too_large", "Payload too large",
			fmt.Sprintf("the body is over %d bytes", maxBody))
	}
	if err != nil {
		return nil, errBadRequest("the request body could not be read: " + err.Error())
	}
	return body, nil
}

// decodeJSON checks the content type (JSON or none) and decodes body into
// v; unknown members are ignored, as a service adding fields expects.
func decodeJSON(r *http.Request, body []byte, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != api.ContentTypeJSON && !strings.HasSuffix(mt, "+json")) {
			return newProblem(http.StatusUnsupportedMediaType, "unsupported_media_type", "Unsupported media type",
				fmt.Sprintf("Content-Type is %q; send %s", ct, api.ContentTypeJSON))
		}
	}
	if len(body) == 0 {
		return errBadRequest("the request body is empty; send a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return errInvalidParameters(map[string][]string{
				typeErr.Field: {fmt.Sprintf("must be a JSON %s, not %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)},
			})
		}
		return errBadRequest("the body is not valid JSON: " + err.Error())
	}
	return nil
}

// jsonKind names a Go kind the way a JSON author thinks of it.
func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "number"
	case goKind == "string":
		return "string"
	case goKind == "bool":
		return "boolean"
	case goKind == "slice":
		return "array"
	default:
		return "object"
	}
}

// addProblem appends a problem for field unless the validator already
// reported that field.
func addProblem(ps api.Problems, field, msg string) api.Problems {
	for _, p := range ps {
		if p.Field == field {
			return ps
		}
	}
	return append(ps, api.Problem{Field: field, Message: msg})
}

// authorize authenticates the bearer token and requires scope.
func (s *Sandbox) authorize(r *http.Request, scope string) (*grant, error) {
	g, err := s.bearer(r)
	if err != nil {
		return nil, err
	}
	return g, g.require(scope)
}

// signedJSON is the prologue of every interface POST: authenticate the
// token, verify the signature in sigHeader, decode the body into v. The
// scope is checked by the caller, since a mandate's depends on the body.
func (s *Sandbox) signedJSON(r *http.Request, sigHeader string, v any) (*grant, []byte, error) {
	g, err := s.bearer(r)
	if err != nil {
		return nil, nil, err
	}
	body, err := s.signedBody(r, sigHeader)
	if err != nil {
		return nil, nil, err
	}
	return g, body, decodeJSON(r, body, v)
}

func (s *Sandbox) handleJWKS(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeRawJSON(w, http.StatusOK, s.jwks)
	return nil
}
