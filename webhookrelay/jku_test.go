package webhookrelay

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// These tests forge webhooks the way an attacker who can post to the
// relay would: sign with their own key and name, in the signature's jku,
// a URL that leads to it. Every key server is a real HTTP server on
// loopback; a test passes only if the attacker's server is never asked
// and nothing forged is stored.

// keyServer is a loopback HTTP server serving one JWKS on every path.
type keyServer struct {
	*httptest.Server
	fetches atomic.Int64
	mu      sync.Mutex
	paths   []string
}

// startKeyServer serves pub as kid on addr ("127.0.0.1:0" for any port).
// It closes every connection after answering, so each fetch dials anew
// (what a rebinding attack needs to be tested at all).
func startKeyServer(t *testing.T, addr string, pub *ecdsa.PublicKey, kid string) *keyServer {
	t.Helper()
	set, err := api.PublicJWKS(pub, kid)
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, addr, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(set) })
}

func startServer(t *testing.T, addr string, h http.HandlerFunc) *keyServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	ks := &keyServer{}
	ks.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.fetches.Add(1)
		ks.mu.Lock()
		ks.paths = append(ks.paths, r.URL.RawPath+"|"+r.URL.Path)
		ks.mu.Unlock()
		h(w, r)
	}))
	ks.Listener.Close()
	ks.Listener = ln
	ks.Config.SetKeepAlivesEnabled(false)
	ks.Start()
	t.Cleanup(ks.Close)
	return ks
}

func (ks *keyServer) port() string {
	_, p, _ := net.SplitHostPort(ks.Listener.Addr().String())
	return p
}

// fakeResolver answers host names from a map the test can change.
type fakeResolver struct {
	mu    sync.Mutex
	hosts map[string][]netip.Addr
	asked map[string]int
}

func newResolver(hosts map[string]string) *fakeResolver {
	r := &fakeResolver{hosts: map[string][]netip.Addr{}, asked: map[string]int{}}
	for h, a := range hosts {
		r.set(h, a)
	}
	return r
}

func (r *fakeResolver) set(host, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts[host] = []netip.Addr{netip.MustParseAddr(addr)}
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked[host]++
	if a, ok := r.hosts[host]; ok {
		return append([]netip.Addr(nil), a...), nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// deliverJKU posts a payout webhook signed by k as kid naming jku, with
// the given Content-Type ("" sends none).
func deliverJKU(t *testing.T, tr *testRelay, clk clock.Clock, k *ecdsa.PrivateKey, kid, jku, id string) response {
	t.Helper()
	body := payoutWebhook(id, api.EventPayoutSettled, "tx-"+id, nil)
	h := stampHeader(clk.Now())
	sig, err := api.SignJKU(k, kid, jku, http.MethodPost, DefaultPath, []api.SignedHeader{{Name: api.HeaderWebhookTimestamp, Value: h.Get(api.HeaderWebhookTimestamp)}}, body)
	if err != nil {
		t.Fatal(err)
	}
	h.Set(api.HeaderPayoutSignature, sig)
	return tr.post(t, body, h)
}

// TestJKUSpellingsReachOnlyTheAllowedURL: a jku that is the allowed URL
// spelled otherwise is the allowed URL (and only it is fetched); every
// spelling that leads elsewhere (another port, scheme or host, user
// info, dot segments, encoded slashes, a query, a fragment, a look-alike
// host) is refused with 401, fetches nothing, and stores nothing.
func TestJKUSpellingsReachOnlyTheAllowedURL(t *testing.T) {
	genuine := testSigningKey(t)
	attacker, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	good := startKeyServer(t, "127.0.0.1:0", &genuine.PublicKey, "svc-1")
	evil := startKeyServer(t, "127.0.0.1:0", &attacker.PublicKey, "svc-1")
	gp, ep := good.port(), evil.port()
	res := newResolver(map[string]string{
		"keys.test": "127.0.0.1", "xn--bcher-kva.test": "127.0.0.1",
		"keys.test.evil.test": "127.0.0.1", "xn--kys-qdd.test": "127.0.0.1", "evil.test": "127.0.0.1",
	})
	clk := clock.NewFake(time.Now())
	tr := startRelay(t, Config{
		JKUAllow: []string{"http://Keys.Test:" + gp + "/keys/jwks", "http://bücher.test:" + gp + "/keys/jwks"},
		Resolver: res, Clock: clk,
	})

	same := []string{
		"http://keys.test:" + gp + "/keys/jwks",
		"HTTP://KEYS.TEST:" + gp + "/keys/jwks",
		"http://keys.test.:" + gp + "/keys/jwks",
		"http://keys.test:0" + gp + "/keys/jwks",
		"http://keys.test:" + gp + "/keys/%6A%77ks",
		"http://keys.test:" + gp + "/%6beys/jwks",
		"http://bücher.test:" + gp + "/keys/jwks",
		"http://BÜCHER.test:" + gp + "/keys/jwks",
		"http://xn--bcher-kva.test:" + gp + "/keys/jwks",
		"http://b%C3%BCcher.test:" + gp + "/keys/jwks",
	}
	var accepted []string
	for i, jku := range same {
		id := fmt.Sprintf("same-%d", i)
		if r := deliverJKU(t, tr, clk, genuine, "svc-1", jku, id); r.status != http.StatusOK {
			t.Errorf("genuine webhook naming %q (the allowed URL spelled otherwise): %d %s, want 200", jku, r.status, r.body)
			continue
		}
		accepted = append(accepted, id)
	}

	elsewhere := []string{
		"http://127.0.0.1:" + ep + "/keys/jwks",                      // the attacker's server
		"http://keys.test:" + ep + "/keys/jwks",                      // port change
		"https://keys.test:" + gp + "/keys/jwks",                     // scheme change
		"http://keys.test:" + gp + "@127.0.0.1:" + ep + "/keys/jwks", // user info hiding the host
		"http://user:pw@keys.test:" + gp + "/keys/jwks",              // user info on the allowed host
		"http://keys.test:" + gp + "\\@127.0.0.1:" + ep + "/keys/jwks",
		"http://keys.test:" + gp + "/keys/../keys/jwks",
		"http://keys.test:" + gp + "/keys/%2e%2e/keys/jwks",
		"http://keys.test:" + gp + "/keys/jwks/../../evil",
		"http://keys.test:" + gp + "/keys/./jwks",
		"http://keys.test:" + gp + "//keys/jwks",
		"http://keys.test:" + gp + "/keys%2Fjwks",
		"http://keys.test:" + gp + "/keys%5Cjwks",
		"http://keys.test:" + gp + "/keys/jwks?next=http://evil.test/",
		"http://keys.test:" + gp + "/keys/jwks#frag",
		"http://keys.test:" + gp + "/keys/jwks/",
		"http://keys.test:" + gp + "/KEYS/jwks",
		"http://keys.test.evil.test:" + gp + "/keys/jwks", // the allowed name as a prefix
		"http://kеys.test:" + gp + "/keys/jwks",           // Cyrillic е: a look-alike host
		"http://127.0.0.1:" + gp + "/keys/jwks",           // the allowed server by address, not by its allowed name
		"//keys.test:" + gp + "/keys/jwks",
		"file:///keys/jwks",
		"http://[::ffff:127.0.0.1]:" + ep + "/keys/jwks",
		"http://%6beys.test:" + gp + "/keys/jwks",           // an escaped host
		"http://keys.test:" + gp + "/keys/jwks%00",          // a NUL after the path
		"http://keys.test:" + gp + "/keys/%2E%2e/keys/jwks", // dot segment, mixed case escapes
		"http://0x7f.0.0.1:" + ep + "/keys/jwks",            // loopback in hex
		"http://2130706433:" + ep + "/keys/jwks",            // loopback as one number
		"http://127.1:" + ep + "/keys/jwks",                 // loopback, short form
		"http://keys.test:" + gp + "/keys/jwks\t",
		"",
	}
	goodBefore := good.fetches.Load()
	for i, jku := range elsewhere {
		r := deliverJKU(t, tr, clk, attacker, "svc-1", jku, fmt.Sprintf("forged-%d", i))
		if r.status != http.StatusUnauthorized {
			t.Errorf("forged webhook naming %q: %d %s, want 401", jku, r.status, r.body)
		}
	}
	if n := evil.fetches.Load(); n != 0 {
		t.Errorf("the attacker's key server was asked %d time(s)", n)
	}
	if n := good.fetches.Load() - goodBefore; n != 0 {
		t.Errorf("the allowed key server was asked %d time(s) for forged jkus naming other URLs", n)
	}
	good.mu.Lock()
	for _, p := range good.paths {
		if p != "|/keys/jwks" {
			t.Errorf("the allowed key server was asked for %q; only /keys/jwks is allowed", p)
		}
	}
	good.mu.Unlock()
	checkExactlyOnce(t, tr.history(t, ""), accepted)
}

// TestJKUAllowListRefusesURLsThatReadAsOthers: an allow-list entry with
// user info, dot segments or no http(s) scheme is a configuration error,
// said at start.
func TestJKUAllowListRefusesURLsThatReadAsOthers(t *testing.T) {
	for _, u := range []string{
		"http://user@keys.example.com/jwks", "http://keys.example.com/a/../jwks", "ftp://keys.example.com/jwks",
		"http://keys.example.com/jwks#x", "keys.example.com/jwks", "http://keys.example.com:99999/jwks",
	} {
		if _, err := (Config{StorePath: "x", JKUAllow: []string{u}}).withDefaults(); err == nil || !strings.Contains(err.Error(), "allowed jku") {
			t.Errorf("allow-list entry %q: %v, want a refusal naming it", u, err)
		}
	}
	for _, pair := range [][2]string{
		{"https://keys.example.com/jwks", "https://KEYS.example.com.:443/jwks"},
		{"http://keys.example.com/jwks", "http://keys.example.com:80/jwks"},
		{"https://keys.example.com", "https://keys.example.com/"},
		{"https://[::1]:8443/k", "https://[0:0:0:0:0:0:0:1]:8443/k"},
	} {
		a, errA := canonicalJKU(pair[0])
		b, errB := canonicalJKU(pair[1])
		if errA != nil || errB != nil || jkuKey(a) != jkuKey(b) {
			t.Errorf("%q and %q are one URL: %v %v %v %v", pair[0], pair[1], a, b, errA, errB)
		}
	}
	for _, pair := range [][2]string{
		{"https://keys.example.com/jwks", "http://keys.example.com:443/jwks"},
		{"https://keys.example.com/jwks", "https://keys.example.com:80/jwks"},
	} {
		a, _ := canonicalJKU(pair[0])
		b, _ := canonicalJKU(pair[1])
		if jkuKey(a) == jkuKey(b) {
			t.Errorf("%q and %q are different URLs, both read as %s", pair[0], pair[1], jkuKey(a))
		}
	}
}

// TestJKUFetchFollowsNoRedirect: the allowed key server answering with a
// redirect (any of 301, 302, 303, 307, 308) does not lead the relay to
// the place it points at; the forged webhook is not stored.
func TestJKUFetchFollowsNoRedirect(t *testing.T) {
	attacker, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	evil := startKeyServer(t, "127.0.0.1:0", &attacker.PublicKey, "svc-1")
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			redirector := startServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, evil.URL+"/jwks", code)
			})
			clk := clock.NewFake(time.Now())
			tr := startRelay(t, Config{JKUAllow: []string{redirector.URL + "/jwks"}, Clock: clk})
			before := evil.fetches.Load()
			r := deliverJKU(t, tr, clk, attacker, "svc-1", redirector.URL+"/jwks", "redirected")
			if r.status/100 == 2 {
				t.Errorf("forged webhook through a %d redirect: %d %s, accepted", code, r.status, r.body)
			}
			// The configured JWKS URL (--jwks-url, no jku) is fetched the
			// same way.
			viaJWKS := startRelay(t, Config{JWKSURL: redirector.URL + "/jwks", Clock: clk})
			if r := deliverJKU(t, viaJWKS, clk, attacker, "svc-1", "", "redirected-jwks"); r.status/100 == 2 {
				t.Errorf("forged webhook through a %d redirect of the JWKS URL: %d %s, accepted", code, r.status, r.body)
			}
			checkExactlyOnce(t, viaJWKS.history(t, ""), nil)
			if n := evil.fetches.Load() - before; n != 0 {
				t.Errorf("the redirect's target was fetched %d time(s)", n)
			}
			if r.status == http.StatusServiceUnavailable && !strings.Contains(string(r.body), "redirect") {
				t.Errorf("the refusal does not say a redirect was refused: %s", r.body)
			}
			checkExactlyOnce(t, tr.history(t, ""), nil)
		})
	}
}

// TestJKUFetchIgnoresProxyEnvironment: HTTP_PROXY, HTTPS_PROXY and
// ALL_PROXY pointing at another host do not carry the key fetch there.
// Go reads the proxy settings once per process, so the scenario runs in a
// child process whose environment holds them from the start.
func TestJKUFetchIgnoresProxyEnvironment(t *testing.T) {
	if os.Getenv("PAYDASH_JKU_PROXY_CHILD") == "1" {
		proxyChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestJKUFetchIgnoresProxyEnvironment$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PAYDASH_JKU_PROXY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("proxy scenario: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("proxy scenario did not run:\n%s", out)
	}
}

func proxyChild(t *testing.T) {
	genuine := testSigningKey(t)
	attacker, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	good := startKeyServer(t, "127.0.0.1:0", &genuine.PublicKey, "svc-1")
	// The proxy answers every request itself, with the attacker's keys.
	proxy := startKeyServer(t, "127.0.0.1:0", &attacker.PublicKey, "svc-1")
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	res := newResolver(map[string]string{"keys.test": "127.0.0.1"})
	clk := clock.NewFake(time.Now())
	jku := "http://keys.test:" + good.port() + "/jwks"
	tr := startRelay(t, Config{JKUAllow: []string{jku}, Resolver: res, Clock: clk})
	if r := deliverJKU(t, tr, clk, attacker, "svc-1", jku, "via-proxy"); r.status != http.StatusUnauthorized {
		t.Errorf("forged webhook with proxy settings pointing at the attacker: %d %s, want 401", r.status, r.body)
	}
	if r := deliverJKU(t, tr, clk, genuine, "svc-1", jku, "direct"); r.status != http.StatusOK {
		t.Errorf("genuine webhook: %d %s, want 200", r.status, r.body)
	}
	if n := proxy.fetches.Load(); n != 0 {
		t.Errorf("the proxy from the environment was asked %d time(s)", n)
	}
	checkExactlyOnce(t, tr.history(t, ""), []string{"direct"})
}

// TestJKUHostIsNotRebound: the allowed host name later resolving to
// another address (DNS rebinding) does not move the key fetch there: the
// addresses of the first look-up are kept.
func TestJKUHostIsNotRebound(t *testing.T) {
	genuine := testSigningKey(t)
	attacker, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	good := startKeyServer(t, "127.0.0.1:0", &genuine.PublicKey, "svc-1")
	// The attacker's server listens on the same port of another loopback
	// address, so only the address tells them apart.
	evil := startKeyServer(t, "127.0.0.2:"+good.port(), &attacker.PublicKey, "rotated")
	res := newResolver(map[string]string{"keys.test": "127.0.0.1"})
	clk := clock.NewFake(time.Now())
	jku := "http://keys.test:" + good.port() + "/jwks"
	tr := startRelay(t, Config{JKUAllow: []string{jku}, Resolver: res, Clock: clk})
	if r := deliverJKU(t, tr, clk, genuine, "svc-1", jku, "before"); r.status != http.StatusOK {
		t.Fatalf("genuine webhook: %d %s", r.status, r.body)
	}
	res.set("keys.test", "127.0.0.2")
	clk.Advance(jwksMinRefetch) // an unknown kid may refetch now
	if r := deliverJKU(t, tr, clk, attacker, "rotated", jku, "rebound"); r.status != http.StatusUnauthorized {
		t.Errorf("forged webhook after the name was rebound: %d %s, want 401", r.status, r.body)
	}
	if n := evil.fetches.Load(); n != 0 {
		t.Errorf("the rebound address was fetched %d time(s)", n)
	}
	if n := good.fetches.Load(); n != 2 {
		t.Errorf("the pinned address was fetched %d time(s), want 2 (first key, refetch for the unknown kid)", n)
	}
	checkExactlyOnce(t, tr.history(t, ""), []string{"before"})
}

// TestJWKSFetchIsBoundedInTimeAndSize: a key server that never answers,
// drips its answer, or sends more than the size bound costs the relay one
// bounded fetch; the webhook is answered 503 (the sender retries) and
// nothing is stored.
func TestJWKSFetchIsBoundedInTimeAndSize(t *testing.T) {
	genuine := testSigningKey(t)
	set, err := api.PublicJWKS(&genuine.PublicKey, "svc-1")
	if err != nil {
		t.Fatal(err)
	}
	big := append([]byte(strings.Repeat(" ", maxJWKSBytes)), set...)
	cases := map[string]http.HandlerFunc{
		"no answer": func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
		"drip": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(set)))
			for _, c := range set {
				_, _ = w.Write([]byte{c})
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		},
		"too big, declared": func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(big) },
		"too big, chunked": func(w http.ResponseWriter, _ *http.Request) {
			for i := 0; i < len(big); i += 64 << 10 {
				_, _ = w.Write(big[i:min(i+64<<10, len(big))])
				w.(http.Flusher).Flush()
			}
		},
		"endless headers": func(w http.ResponseWriter, _ *http.Request) {
			for i := range 2000 {
				w.Header().Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("x", 100))
			}
			_, _ = w.Write(set)
		},
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			ks := startServer(t, "127.0.0.1:0", h)
			clk := clock.NewFake(time.Now())
			tr := startRelay(t, Config{JKUAllow: []string{ks.URL + "/jwks"}, Clock: clk, jwksTimeout: 500 * time.Millisecond})
			start := time.Now()
			r := deliverJKU(t, tr, clk, genuine, "svc-1", ks.URL+"/jwks", "bounded")
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the delivery took %v", took)
			}
			if r.status != http.StatusServiceUnavailable {
				t.Errorf("%d %s, want 503 (keys unavailable)", r.status, r.body)
			}
			checkExactlyOnce(t, tr.history(t, ""), nil)
		})
	}
}

// TestVerifiedWebhookIsTakenWhateverItsContentType: the interface
// promises no Content-Type on deliveries. A webhook whose signature
// verifies is stored whatever it declares; one that does not verify is
// 401 (not 415) and stored nowhere; where nothing is verified, a body not
// declared JSON is still refused (415) as a browser's cross-site post.
func TestVerifiedWebhookIsTakenWhateverItsContentType(t *testing.T) {
	key := testSigningKey(t)
	tr := startRelay(t, Config{VerifyKey: &key.PublicKey})
	types := []string{"", "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", "application/octet-stream", "application/json; charset=iso-8859-1", "not a type;;"}
	var want []string
	for i, ct := range types {
		id := fmt.Sprintf("ct-%d", i)
		body := payoutWebhook(id, api.EventPayoutSettled, "tx", nil)
		h := sign(t, key, testKeyID, DefaultPath, stampHeader(time.Now()), body)
		setContentType(h, ct)
		if r := do(t, http.DefaultClient, http.MethodPost, tr.base+DefaultPath, h, body); r.status != http.StatusOK {
			t.Errorf("signed webhook with Content-Type %q: %d %s, want 200", ct, r.status, r.body)
		} else {
			want = append(want, id)
		}
		forged := payoutWebhook("forged-"+id, api.EventPayoutSettled, "tx", nil)
		h = stampHeader(time.Now())
		h.Set(api.HeaderPayoutSignature, "not-a-signature")
		setContentType(h, ct)
		if r := do(t, http.DefaultClient, http.MethodPost, tr.base+DefaultPath, h, forged); r.status != http.StatusUnauthorized {
			t.Errorf("unsigned webhook with Content-Type %q: %d %s, want 401", ct, r.status, r.body)
		}
	}
	// A byte-identical redelivery not declared JSON is verified, not
	// answered from the store: no browser post is answered unverified.
	body := payoutWebhook("ct-0", api.EventPayoutSettled, "tx", nil)
	h := stampHeader(time.Now())
	h.Set(api.HeaderPayoutSignature, "not-a-signature")
	h.Set("Content-Type", "text/plain")
	if r := do(t, http.DefaultClient, http.MethodPost, tr.base+DefaultPath, h, body); r.status != http.StatusUnauthorized {
		t.Errorf("unsigned text/plain redelivery: %d %s, want 401", r.status, r.body)
	}
	checkExactlyOnce(t, tr.history(t, ""), want)

	open := startRelay(t, Config{})
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-16"} {
		body := payoutWebhook("open-"+ct, api.EventPayoutSettled, "tx", nil)
		h := stampHeader(time.Now())
		setContentType(h, ct)
		if r := do(t, http.DefaultClient, http.MethodPost, open.base+DefaultPath, h, body); r.status != http.StatusUnsupportedMediaType {
			t.Errorf("relay without verification, Content-Type %q: %d %s, want 415", ct, r.status, r.body)
		}
	}
	checkExactlyOnce(t, open.history(t, ""), nil)
}

func setContentType(h http.Header, ct string) {
	if ct == "" {
		h.Del("Content-Type")
		return
	}
	h.Set("Content-Type", ct)
}
