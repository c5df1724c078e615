package webhookrelay

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// guard refuses the requests that only a web browser would make to a relay
// on this machine: a Host header that is not the relay's (a DNS-rebinding
// page sends its own name), and an Origin of another site. Programs (the
// service posting webhooks, paydash itself, curl) send no Origin and the
// Host they dialled, so they pass.
type guard struct {
	listenHost string
	anyIP      bool
	hosts      map[string]bool
	origins    map[string]bool
}

func newGuard(listen string, allowedHosts, allowedOrigins []string) (*guard, error) {
	g := &guard{hosts: map[string]bool{}, origins: map[string]bool{}}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		g.anyIP = true
	} else {
		g.listenHost = normalizeHost(host)
	}
	for _, h := range allowedHosts {
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		if h = strings.TrimSpace(h); h != "" {
			g.hosts[normalizeHost(h)] = true
		}
	}
	for _, o := range allowedOrigins {
		if o == "*" {
			g.origins["*"] = true
			continue
		}
		u, err := url.Parse(strings.TrimSpace(o))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("allowed origin %q must be scheme://host[:port], like https://dash.example.com", o)
		}
		g.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return g, nil
}

func normalizeHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// checkHost passes loopback names, the listen address's host and allowed
// hosts (a tunnel's or load balancer's public name). An empty Host
// (HTTP/1.0) passes: browsers always send one.
func (g *guard) checkHost(req *http.Request) error {
	if req.Host == "" {
		return nil
	}
	host := req.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = normalizeHost(host)
	switch {
	case isLoopbackHost(host), strings.HasSuffix(host, ".localhost"), g.hosts[host], host == g.listenHost:
		return nil
	case g.anyIP && net.ParseIP(host) != nil:
		return nil
	}
	return fmt.Errorf("this relay answers to loopback names and its listen address, not %q; allow a public name with --allowed-host", truncate(req.Host, 100))
}

// checkOrigin refuses a request a browser made for a page of another
// origin, unless that origin is allowed.
func (g *guard) checkOrigin(req *http.Request) error {
	origin := req.Header.Get("Origin")
	if origin == "" {
		switch site := req.Header.Get("Sec-Fetch-Site"); site {
		case "cross-site", "same-site":
			return fmt.Errorf("requests from web pages of other sites are refused (Sec-Fetch-Site %s)", site)
		}
		return nil
	}
	if g.origins["*"] || g.origins[strings.ToLower(origin)] {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, req.Host) {
		return nil
	}
	return fmt.Errorf("requests from web pages of other origins are refused (Origin %s); allow one with --allowed-origin", truncate(origin, 100))
}

func (g *guard) wrap(next http.Handler, refuse func(w http.ResponseWriter, req *http.Request, status int, reason, detail string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if err := g.checkHost(req); err != nil {
			refuse(w, req, http.StatusMisdirectedRequest, RejectHost, err.Error())
			return
		}
		if err := g.checkOrigin(req); err != nil {
			refuse(w, req, http.StatusForbidden, RejectOrigin, err.Error())
			return
		}
		next.ServeHTTP(w, req)
	})
}

// requireJSON refuses a webhook not declared as JSON: application/json or
// application/*+json.
func requireJSON(req *http.Request) error {
	ct := req.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
		return nil
	}
	if ct == "" {
		ct = "missing"
	}
	return fmt.Errorf("Content-Type is %s; webhooks must be sent as application/json", truncate(ct, 100))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
