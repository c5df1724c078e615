package webhookrelay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Route sends the events whose type matches one of Patterns to URL. A
// route without patterns catches every type no earlier route took. Each
// route is forwarded by its own forwarder, with its own order, cursor and
// retries, so one endpoint that is down holds back only its own events.
type Route struct {
	// Patterns are event types or path.Match globs (payout_*); none
	// means every type not routed before this route.
	Patterns []string
	URL      string
}

// ParseRoute reads one --forward-to value: a bare http(s) URL (a
// catch-all), or "pattern[,pattern...]=URL".
func ParseRoute(spec string) (Route, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		return Route{URL: spec}, checkRouteURL(spec)
	}
	pats, u, ok := strings.Cut(spec, "=")
	if !ok {
		return Route{}, fmt.Errorf("forward route %q: want URL or TYPES=URL, e.g. 'payout_failed,payout_*=http://localhost:3000/payouts'", spec)
	}
	r := Route{URL: strings.TrimSpace(u)}
	for _, p := range strings.Split(pats, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return Route{}, fmt.Errorf("forward route %q: pattern %q: %w", spec, p, err)
		}
		r.Patterns = append(r.Patterns, p)
	}
	if len(r.Patterns) == 0 {
		return Route{}, fmt.Errorf("forward route %q names no event type before '='", spec)
	}
	return r, checkRouteURL(r.URL)
}

func checkRouteURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("forward URL %q must be an absolute http(s) URL", u)
	}
	return nil
}

// String is the route as --forward-to takes it; it also names the
// route's forwarding cursor in the store.
func (r Route) String() string {
	if len(r.Patterns) == 0 {
		return r.URL
	}
	return strings.Join(r.Patterns, ",") + "=" + r.URL
}

// matches reports whether typ is one of the route's types.
func (r Route) matches(typ string) bool {
	if len(r.Patterns) == 0 {
		return true
	}
	for _, p := range r.Patterns {
		if ok, _ := path.Match(p, typ); ok {
			return true
		}
	}
	return false
}

// routeFor returns the index of the first route taking typ, or -1.
func routeFor(routes []Route, typ string) int {
	for i, r := range routes {
		if r.matches(typ) {
			return i
		}
	}
	return -1
}

// effectiveRoutes is cfg.Routes followed by the legacy ForwardURL as a
// catch-all, checked: URLs absolute, no route after a catch-all (it
// could never match), no two routes alike (they would share a cursor).
func effectiveRoutes(cfg Config) ([]Route, error) {
	routes := append([]Route(nil), cfg.Routes...)
	if cfg.ForwardURL != "" {
		routes = append(routes, Route{URL: cfg.ForwardURL})
	}
	seen := map[string]bool{}
	for i, r := range routes {
		if err := checkRouteURL(r.URL); err != nil {
			return nil, err
		}
		for _, p := range r.Patterns {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("forward route %q: pattern %q: %w", r, p, err)
			}
		}
		if len(r.Patterns) == 0 && i < len(routes)-1 {
			return nil, fmt.Errorf("forward route %q catches every type, so the routes after it (%q) would never get an event: put it last", r, routes[i+1])
		}
		if seen[r.String()] {
			return nil, fmt.Errorf("forward route %q is given twice", r)
		}
		seen[r.String()] = true
	}
	if len(routes) > 0 && cfg.NATS != nil {
		return nil, errors.New("forwarding (--forward-to) is not available in clustered mode (--nats): run one relay with a bbolt store to forward")
	}
	return routes, nil
}

// startForwarders starts one forwarder per route, each from its own
// cursor, and forgets the cursors of routes no longer configured.
func (r *Relay) startForwarders() error {
	routes, err := effectiveRoutes(r.cfg)
	if err != nil {
		return err
	}
	st := r.store
	_, _, assigned, err := st.bounds()
	if err != nil {
		return err
	}
	keys := make([][]byte, len(routes))
	for i := range routes {
		keys[i] = routeCursorKey(routes, i)
	}
	if err := st.keepRouteCursors(keys); err != nil {
		return err
	}
	for i := range routes {
		cursor, ok, err := st.routeCursor(keys[i])
		if err != nil {
			return err
		}
		if !ok {
			// Forwarding starts with the events that arrive from now on,
			// like stripe listen --forward-to; it does not replay history.
			// The start is kept, so a restart before the first event is
			// forwarded resumes there instead of skipping it.
			cursor = assigned
			if err := st.setRouteCursor(keys[i], cursor); err != nil {
				return err
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		r.forwarders = append(r.forwarders, &forwarder{
			routes: routes, index: i, key: keys[i], client: &http.Client{Timeout: forwardTimeout},
			store: st, clock: r.cfg.Clock, m: r.m, log: r.cfg.Logger.With("route", routes[i].String()),
			wake: make(chan struct{}, 1), cursor: cursor, ctx: ctx, cancel: cancel, stopped: make(chan struct{}),
		})
	}
	if len(r.forwarders) == 0 {
		return nil
	}
	// The writer signals one channel after each commit; every forwarder
	// needs the news.
	go func(fs []*forwarder) {
		for {
			select {
			case <-r.writer.stored:
			case <-fs[0].ctx.Done():
				return
			}
			for _, f := range fs {
				select {
				case f.wake <- struct{}{}:
				default:
				}
			}
		}
	}(r.forwarders)
	for _, f := range r.forwarders {
		go f.run()
	}
	return nil
}
