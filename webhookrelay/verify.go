package webhookrelay

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// errKeysUnavailable means the verification keys could not be fetched; the
// delivery is answered 503 so the sender retries rather than giving up on
// an event that may well be genuine.
var errKeysUnavailable = errors.New("verification keys unavailable")

// jwksMinRefetch rate-limits refetching the JWKS when signatures name an
// unknown kid, so forged kids cannot make the relay hammer the key server.
const jwksMinRefetch = 10 * time.Second

// jwksRetryAfterFailure spaces fetches while the key server is down; those
// deliveries get 503 and the sender retries them.
const jwksRetryAfterFailure = time.Second

// maxJWKSBytes bounds the JWKS document.
const maxJWKSBytes = 1 << 20

// verifier checks a delivery's X-Svc-Signature. A nil *verifier means
// verification is off.
//
// Keys come from, in order: the signature's jku when it is on the
// allow-list (the service names its JWKS on every webhook); else the
// static key; else the configured JWKS URL. A jku that is not allowed is
// refused unless a static key is configured (then nothing is fetched, so a
// forged jku leads nowhere, and the static key decides). Each JWKS is
// cached and refetched on an unknown kid at most every jwksMinRefetch.
type verifier struct {
	// slots admits at most GOMAXPROCS signature checks at once. Each is
	// ~2 ms of CPU; with dozens running at once the scheduler time-slices
	// and preempts them, which costs more CPU than it shares (the profile
	// showed ~15% in asyncPreempt), and every webhook finishes later.
	slots  chan struct{}
	static *ecdsa.PublicKey
	jwks   *keySet            // cfg.JWKSURL, or nil
	jku    map[string]*keySet // allowed jku URL -> its key set
}

// keySet is one JWKS URL's cached keys.
type keySet struct {
	url    string // the allowed URL, canonical (see canonicalJKU)
	client *http.Client
	clock  clock.Clock

	mu        sync.Mutex
	keys      map[string]*ecdsa.PublicKey
	lastFetch time.Time
	lastErr   error
}

func newVerifier(cfg Config) *verifier {
	if cfg.VerifyKey == nil && cfg.JWKSURL == "" && len(cfg.JKUAllow) == 0 {
		return nil
	}
	v := &verifier{static: cfg.VerifyKey, jku: map[string]*keySet{}, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
	set := func(raw string) *keySet {
		u, err := canonicalJKU(raw)
		if err != nil {
			return nil // withDefaults refused it already
		}
		k := jkuKey(u)
		if v.jku[k] == nil {
			v.jku[k] = &keySet{url: k, client: jwksClient(u, cfg.Resolver, cfg.jwksTimeout), clock: cfg.Clock}
		}
		return v.jku[k]
	}
	if cfg.JWKSURL != "" {
		// The configured JWKS URL is trusted as a jku too.
		v.jwks = set(cfg.JWKSURL)
	}
	for _, u := range cfg.JKUAllow {
		set(u)
	}
	return v
}

// keySetFor returns the allowed key set a jku names, whatever its
// spelling, or an error saying why it names none.
func (v *verifier) keySetFor(jku string) (*keySet, error) {
	u, err := canonicalJKU(jku)
	if err != nil {
		return nil, fmt.Errorf("%w: jku %q %s; it is not an allowed key set URL", api.ErrSignatureInvalid, jku, err.Error())
	}
	if set := v.jku[jkuKey(u)]; set != nil {
		return set, nil
	}
	return nil, fmt.Errorf("%w: jku %q is not an allowed key set URL (allow it with --jku-allow)", api.ErrSignatureInvalid, jku)
}

// verify checks the signature over POST, the request path, the signed
// headers (which must include the webhook timestamp when present) and the
// body. Errors wrap api.ErrSignatureMissing / api.ErrSignatureInvalid (401)
// or errKeysUnavailable (503).
func (v *verifier) verify(ctx context.Context, path string, header http.Header, body []byte) error {
	sig := header.Get(api.HeaderPayoutSignature)
	key := v.static
	if key == nil || len(v.jku) > 0 {
		kid, jku, err := api.SignatureSource(sig)
		if err != nil {
			return err
		}
		switch {
		case jku != "" && len(v.jku) > 0:
			set, err := v.keySetFor(jku)
			if err != nil {
				if key != nil {
					// The static key decides; nothing is fetched.
					break
				}
				return err
			}
			if key, err = set.key(ctx, kid); err != nil {
				return err
			}
		case key != nil:
			// The static key decides; nothing is fetched.
		case jku != "":
			return fmt.Errorf("%w: jku %q is not an allowed key set URL (allow it with --jku-allow)", api.ErrSignatureInvalid, jku)
		case v.jwks != nil:
			if key, err = v.jwks.key(ctx, kid); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: the signature names no jku and the relay has no verification key or JWKS URL", api.ErrSignatureInvalid)
		}
	}
	select {
	case v.slots <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", errKeysUnavailable, ctx.Err())
	}
	defer func() { <-v.slots }()
	return api.Verify(key, sig, http.MethodPost, path, header, body, api.HeaderWebhookTimestamp)
}

// key returns the JWKS key named kid, fetching the set the first time and
// again (at most every jwksMinRefetch) when kid is unknown, which is how a
// sender's key rotation is picked up.
func (v *keySet) key(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if k, ok := v.keys[kid]; ok {
		return k, nil
	}
	if !v.lastFetch.IsZero() {
		since := v.clock.Now().Sub(v.lastFetch)
		if v.keys == nil && since < jwksRetryAfterFailure {
			return nil, v.lastErr
		}
		if v.keys != nil && since < jwksMinRefetch {
			return nil, fmt.Errorf("%w: key id %q is not in the JWKS", api.ErrSignatureInvalid, kid)
		}
	}
	keys, err := v.fetch(ctx)
	v.lastFetch = v.clock.Now()
	if err != nil {
		// Keep serving the keys we had; a failed refetch only delays rotation.
		v.lastErr = fmt.Errorf("%w: fetching JWKS from %s: %w", errKeysUnavailable, v.url, err)
		if v.keys == nil {
			return nil, v.lastErr
		}
		return nil, fmt.Errorf("%w: key id %q is not in the JWKS (refetch failed)", api.ErrSignatureInvalid, kid)
	}
	v.keys = keys
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%w: key id %q is not in the JWKS", api.ErrSignatureInvalid, kid)
}

func (v *keySet) fetch(ctx context.Context) (map[string]*ecdsa.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the caller's message already
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > maxJWKSBytes {
		return nil, fmt.Errorf("the key set is %d bytes, more than the %d accepted", resp.ContentLength, maxJWKSBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("the key set is more than the %d bytes accepted", maxJWKSBytes)
	}
	return api.ParseJWKS(data)
}
