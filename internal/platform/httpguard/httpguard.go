package httpguard

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Refusal says why a request was refused: the HTTP status to answer with,
// a short machine-readable slug, a title and a detail for a person.
type Refusal struct {
	Status int
	Slug   string // e.g. "forbidden_origin"
	Title  string
	Detail string
}

func (r *Refusal) Error() string { return r.Title + ": " + r.Detail }

// Options configure a Guard.
type Options struct {
	// Listen is the address the server listens on, as bound (host:port);
	// its host is accepted in Host. An unspecified host (0.0.0.0, ::)
	// accepts every IP literal, which DNS rebinding cannot produce.
	Listen string
	// AllowedHosts are further host names accepted in Host, such as the
	// public name of a tunnel in front of the server ("abc.example.net").
	AllowedHosts []string
	// AllowedOrigins are browser origins allowed besides the server's own
	// ("https://dash.example.com"). Each must be scheme://host[:port].
	AllowedOrigins []string
}

// Guard holds one server's policy. It is safe for concurrent use.
type Guard struct {
	listenHost  string
	anyIP       bool
	hosts       map[string]bool
	origins     map[string]bool
	originsList []string
}

// New checks the options and builds a Guard.
func New(o Options) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}, origins: map[string]bool{}}
	if o.Listen != "" {
		host, _, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return nil, fmt.Errorf("httpguard: listen address %q: %w", o.Listen, err)
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			g.anyIP = true
		} else {
			g.listenHost = normalizeHost(host)
		}
	}
	for _, h := range o.AllowedHosts {
		h = strings.TrimSpace(h)
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		if h == "" {
			continue
		}
		g.hosts[normalizeHost(h)] = true
	}
	for _, raw := range o.AllowedOrigins {
		origin, err := NormalizeOrigin(raw)
		if err != nil {
			return nil, err
		}
		if !g.origins[origin] {
			g.origins[origin] = true
			g.originsList = append(g.originsList, origin)
		}
	}
	return g, nil
}

// NormalizeOrigin turns "HTTPS://Dash.Example.com/" into
// "https://dash.example.com", the form browsers send; anything with a
// path, query, user or a scheme other than http(s) is an error.
func NormalizeOrigin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("httpguard: allowed origin %q must be scheme://host[:port], like https://dash.example.com", raw)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// normalizeHost lower-cases a host name and drops a trailing dot and IPv6
// brackets, so "LOCALHOST." and "localhost" compare equal.
func normalizeHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// IsLoopbackName reports whether host (without port) can only mean this
// machine: localhost, a name under .localhost (RFC 6761: browsers resolve
// these to loopback themselves), or a loopback IP.
func IsLoopbackName(host string) bool {
	h := normalizeHost(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// CheckHost refuses a Host header that is not a loopback name, the listen
// address's host, or an allowed host. An empty Host (HTTP/1.0 clients)
// passes: browsers always send one.
func (g *Guard) CheckHost(r *http.Request) error {
	raw := r.Host
	if raw == "" {
		return nil
	}
	host := raw
	if h, _, err := net.SplitHostPort(raw); err == nil {
		host = h
	}
	host = normalizeHost(host)
	switch {
	case IsLoopbackName(host), g.hosts[host], host == g.listenHost:
		return nil
	case g.anyIP && net.ParseIP(host) != nil:
		return nil
	}
	return &Refusal{Status: http.StatusMisdirectedRequest, Slug: "unknown_host", Title: "Unknown host",
		Detail: fmt.Sprintf("this server answers to localhost and its own address, not %q (a page rebinding its DNS name to this machine sends its own name)", truncate(raw, 100))}
}

// CheckOrigin refuses a request a browser made on behalf of a page of
// another origin: an Origin header other than the server's own (same
// scheme-less host as Host) or an allowed one, or Sec-Fetch-Site saying
// cross-site or same-site without an allowed Origin. Requests without
// either header (programs) pass, whatever their method.
func (g *Guard) CheckOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		switch r.Header.Get("Sec-Fetch-Site") {
		case "cross-site", "same-site":
			return g.refuseOrigin("(none)", "the browser marked it "+r.Header.Get("Sec-Fetch-Site"))
		}
		return nil
	}
	if g.origins[strings.ToLower(origin)] {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") &&
		u.Host != "" && r.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return g.refuseOrigin(origin, "")
}

func (g *Guard) refuseOrigin(origin, why string) error {
	detail := fmt.Sprintf("requests from web pages of other origins are refused (Origin %s", truncate(origin, 100))
	if why != "" {
		detail += "; " + why
	}
	detail += ")"
	if len(g.originsList) > 0 {
		detail += "; allowed: " + strings.Join(g.originsList, ", ")
	} else {
		detail += "; allow an origin explicitly if a page of yours must call this server"
	}
	return &Refusal{Status: http.StatusForbidden, Slug: "forbidden_origin", Title: "Forbidden origin", Detail: detail}
}

// ErrNotJSON is wrapped by RequireJSON's refusal.
var ErrNotJSON = errors.New("not a JSON content type")

// IsJSONMediaType reports whether a Content-Type header names JSON:
// application/json or any application/*+json, with parameters.
func IsJSONMediaType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// RequireJSON refuses a request whose body is not declared JSON, or is
// declared JSON in a charset other than UTF-8. A request
// with no body at all (Content-Length 0, no Content-Type) passes, so a
// bare `curl -X POST` on an action endpoint still works; a browser cannot
// use that to send data.
func RequireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return nil
	}
	if IsJSONMediaType(ct) {
		// JSON is UTF-8 (RFC 8259 8.1); a body declared in another
		// charset would be read as other text than its sender meant.
		_, params, _ := mime.ParseMediaType(ct)
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return &Refusal{Status: http.StatusUnsupportedMediaType, Slug: "unsupported_media_type", Title: "Unsupported media type",
				Detail: fmt.Sprintf("Content-Type declares charset %q; JSON is UTF-8: send application/json (charset=utf-8 or none)", truncate(cs, 40))}
		}
		return nil
	}
	shown := ct
	if shown == "" {
		shown = "missing"
	} else {
		shown = fmt.Sprintf("%q", truncate(ct, 100))
	}
	return &Refusal{Status: http.StatusUnsupportedMediaType, Slug: "unsupported_media_type", Title: "Unsupported media type",
		Detail: fmt.Sprintf("Content-Type is %s; send application/json", shown)}
}

// Check runs CheckHost then CheckOrigin: what every endpoint of a local
// server should pass.
func (g *Guard) Check(r *http.Request) error {
	if err := g.CheckHost(r); err != nil {
		return err
	}
	return g.CheckOrigin(r)
}

// Handler wraps next so every request passes Check first; refusals are
// written by refuse (nil writes WriteProblem).
func (g *Guard) Handler(next http.Handler, refuse func(http.ResponseWriter, *http.Request, *Refusal)) http.Handler {
	if refuse == nil {
		refuse = func(w http.ResponseWriter, _ *http.Request, rf *Refusal) { WriteProblem(w, rf) }
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.Check(r); err != nil {
			var rf *Refusal
			if errors.As(err, &rf) {
				refuse(w, r, rf)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// WriteProblem answers with the refusal as an RFC 9457 problem document.
func WriteProblem(w http.ResponseWriter, rf *Refusal) {
	body, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}{ProblemTypeBase + rf.Slug, rf.Title, rf.Status, rf.Detail}) // strings and an int always marshal
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(rf.Status)
	_, _ = w.Write(append(body, '\n'))
}

// ProblemTypeBase prefixes the "type" of the problems WriteProblem sends.
const ProblemTypeBase = "https://paydash.dev/problems/"

// truncate keeps a hostile header from filling a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
