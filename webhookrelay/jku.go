package webhookrelay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/idna"
)

// A signature's jku names the URL its verification keys are fetched from.
// Whoever forges a webhook also writes its jku, so the relay fetches keys
// only from a URL on its allow-list, and nowhere else on the way:
//
//   - a jku matches an allowed URL when both are the same URL once
//     spelled alike (canonicalJKU): scheme and host in lower case, no
//     trailing dot, an IDN host in its ASCII form, the default port made
//     explicit, percent-escapes of unreserved characters decoded. What
//     is fetched is always the allow-list's own URL, never the jku text;
//   - a jku with user info, a fragment, dot segments, empty segments,
//     encoded slashes or backslashes matches nothing: such spellings exist
//     to make one URL read as another;
//   - the fetch follows no redirect, ignores proxy settings from the
//     environment (HTTP_PROXY and friends would send it to another host),
//     dials only the addresses the allowed host name had when it was first
//     looked up (a later DNS answer pointing elsewhere is not followed),
//     and is bounded in time and size.

// jwksFetchTimeout bounds one JWKS fetch: connect, TLS, headers and body.
const jwksFetchTimeout = 5 * time.Second

// Resolver looks host names up; *net.Resolver is one. Tests give their
// own to point a name at loopback addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// canonicalJKU returns the one spelling of a key set URL that two
// spellings of the same URL share, or an error saying why the URL is not
// one the relay would fetch keys from.
func canonicalJKU(raw string) (*url.URL, error) {
	if strings.ContainsAny(raw, "\\ \t\r\n") {
		return nil, errors.New("contains a backslash or white space")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("is not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return nil, errors.New("is not an http(s) URL")
	case u.Opaque != "" || u.Host == "":
		return nil, errors.New("has no host")
	case u.User != nil:
		return nil, errors.New("carries user info (user@host), which makes one host read as another")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, errors.New("has a fragment")
	}
	host, port := u.Hostname(), u.Port()
	if strings.Contains(u.Host, "%") {
		// Only non-ASCII bytes may be escaped in a host (url.Parse refuses
		// the rest); decoded, they are an IDN host, handled below.
		if host, err = url.PathUnescape(host); err != nil {
			return nil, errors.New("has a badly escaped host")
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return nil, errors.New("names an IPv6 zone")
		}
		host = ip.Unmap().String()
	} else {
		host = strings.TrimSuffix(host, ".")
		ascii, err := idna.Lookup.ToASCII(host)
		if err != nil || ascii == "" || strings.HasSuffix(ascii, ".") {
			return nil, fmt.Errorf("has an invalid host name %q", host)
		}
		host = ascii
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	} else {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("has an invalid port %q", port)
		}
		port = strconv.FormatUint(n, 10)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	path, err = canonicalPath(path)
	if err != nil {
		return nil, err
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), RawPath: path, Path: mustUnescapePath(path), RawQuery: u.RawQuery}, nil
}

// canonicalPath decodes escapes of unreserved characters (RFC 3986 6.2.2.2),
// upper-cases the rest, and refuses the paths that mean something other
// than they read: dot segments, empty segments, encoded '/' or '\'.
func canonicalPath(p string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", errors.New("has a bad percent-escape in its path")
		}
		v := unhex(p[i+1])<<4 | unhex(p[i+2])
		switch {
		case v == '/' || v == '\\':
			return "", errors.New("has an encoded slash in its path")
		case isUnreserved(v):
			b.WriteByte(v)
		default:
			b.WriteString(strings.ToUpper(p[i : i+3]))
		}
		i += 2
	}
	out := b.String()
	for _, seg := range strings.Split(out, "/")[1:] {
		if seg == "." || seg == ".." {
			return "", errors.New("has a dot segment (. or ..) in its path")
		}
	}
	if strings.Contains(out, "//") {
		return "", errors.New("has an empty segment (//) in its path")
	}
	return out, nil
}

func mustUnescapePath(p string) string {
	s, err := url.PathUnescape(p)
	if err != nil {
		return p
	}
	return s
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// jkuKey is the form a URL is compared in.
func jkuKey(u *url.URL) string { return u.String() }

// pinnedDialer dials only the address of the one host a key set lives on,
// looking its name up once: the first answer is kept, so a name rebound
// to another address later is not followed.
type pinnedDialer struct {
	hostport string // the allowed URL's host:port; nothing else is dialled
	resolver Resolver
	dialer   net.Dialer

	mu    sync.Mutex
	addrs []netip.Addr
}

func (d *pinnedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr != d.hostport {
		return nil, fmt.Errorf("refusing to connect to %s: keys are fetched from %s only", addr, d.hostport)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := d.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, a := range addrs {
		c, err := d.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

func (d *pinnedDialer) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.addrs != nil {
		return d.addrs, nil
	}
	addrs, err := d.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
	}
	d.addrs = addrs
	return addrs, nil
}

// errRedirect refuses every redirect: keys come from the allowed URL itself.
var errRedirect = errors.New("the key server answered with a redirect; keys are fetched only from the allowed URL itself, redirects are not followed")

// jwksClient is the HTTP client of one allowed key set URL: no proxy, no
// redirect, only that URL's host dialled, every step bounded.
func jwksClient(u *url.URL, resolver Resolver, timeout time.Duration) *http.Client {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	if timeout <= 0 {
		timeout = jwksFetchTimeout
	}
	d := &pinnedDialer{hostport: u.Host, resolver: resolver, dialer: net.Dialer{Timeout: timeout}}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            d.DialContext,
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 64 << 10,
			DisableCompression:     true,
			MaxIdleConns:           2,
			IdleConnTimeout:        time.Minute,
			ForceAttemptHTTP2:      true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
	}
}
