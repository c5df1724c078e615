package webhookrelay

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/clock"
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
type verifier struct {
	static *ecdsa.PublicKey

	url    string
	client *http.Client
	clock  clock.Clock

	mu        sync.Mutex
	keys      map[string]*ecdsa.PublicKey
	lastFetch time.Time
	lastErr   error
}

func newVerifier(cfg Config) *verifier {
	switch {
	case cfg.VerifyKey != nil:
		return &verifier{static: cfg.VerifyKey}
	case cfg.JWKSURL != "":
		return &verifier{url: cfg.JWKSURL, client: &http.Client{Timeout: 5 * time.Second}, clock: cfg.Clock}
	}
	return nil
}

// verify checks the signature over POST, the request path, the signed
// headers (which must include the webhook timestamp when present) and the
// body. Errors wrap api.ErrSignatureMissing / api.ErrSignatureInvalid (401)
// or errKeysUnavailable (503).
func (v *verifier) verify(ctx context.Context, path string, header http.Header, body []byte) error {
	sig := header.Get(api.HeaderPayoutSignature)
	key := v.static
	if key == nil {
		kid, err := api.SignatureKeyID(sig)
		if err != nil {
			return err
		}
		if key, err = v.key(ctx, kid); err != nil {
			return err
		}
	}
	return api.Verify(key, sig, http.MethodPost, path, header, body, api.HeaderWebhookTimestamp)
}

// key returns the JWKS key named kid, fetching the set the first time and
// again (at most every jwksMinRefetch) when kid is unknown, which is how a
// sender's key rotation is picked up.
func (v *verifier) key(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
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
		v.lastErr = fmt.Errorf("%w: fetching JWKS from %s: %v", errKeysUnavailable, v.url, err)
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

func (v *verifier) fetch(ctx context.Context) (map[string]*ecdsa.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes))
	if err != nil {
		return nil, err
	}
	return api.ParseJWKS(data)
}
