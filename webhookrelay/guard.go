package webhookrelay

import (
	"errors"
	"net/http"

	"github.com/paydash/paydash/internal/platform/httpguard"
)

// guard refuses, on every endpoint, what only a web browser would send to
// a relay on this machine (see httpguard): a Host that is not a
// loopback name, the listen address or an allowed host (DNS rebinding),
// and an Origin of another site. Programs (the service posting webhooks,
// paydash itself, curl) pass.
type guard struct {
	g *httpguard.Guard
	// anyOrigin is AllowedOrigins "*": the operator opted out of the
	// Origin check.
	anyOrigin bool
}

func newGuard(listen string, allowedHosts, allowedOrigins []string) (*guard, error) {
	gd := &guard{}
	var origins []string
	for _, o := range allowedOrigins {
		if o == "*" {
			gd.anyOrigin = true
			continue
		}
		origins = append(origins, o)
	}
	g, err := httpguard.New(httpguard.Options{Listen: listen, AllowedHosts: allowedHosts, AllowedOrigins: origins})
	if err != nil {
		return nil, err
	}
	gd.g = g
	return gd, nil
}

// refusalReason maps httpguard's refusals to the relay's rejection reasons.
func refusalReason(err error) (status int, reason, detail string) {
	var rf *httpguard.Refusal
	if !errors.As(err, &rf) {
		return http.StatusBadRequest, RejectBadJSON, err.Error()
	}
	switch rf.Slug {
	case "unknown_host":
		reason = RejectHost
	case "forbidden_origin":
		reason = RejectOrigin
	case "unsupported_media_type":
		reason = RejectNotJSONType
	default:
		reason = rf.Slug
	}
	return rf.Status, reason, rf.Detail
}

func (gd *guard) wrap(next http.Handler, refuse func(w http.ResponseWriter, req *http.Request, status int, reason, detail string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		err := gd.g.CheckHost(req)
		if err == nil && !gd.anyOrigin {
			err = gd.g.CheckOrigin(req)
		}
		if err != nil {
			status, reason, detail := refusalReason(err)
			refuse(w, req, status, reason, detail)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// requireJSON refuses a webhook not declared as JSON: a browser sends
// text/plain and form bodies cross-origin without asking first.
func requireJSON(req *http.Request) error {
	return httpguard.RequireJSON(req)
}
