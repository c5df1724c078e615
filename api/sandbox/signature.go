package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paydash/paydash/api"
)

// signedBody reads the body of a POST and verifies its signature in
// header (Svc-Signature on /v3, X-Svc-Signature on /v1) against the
// merchant's key: method, URL path, signed headers and body. The
// Idempotency-Key, when sent, must be among the signed headers.
func (s *Sandbox) signedBody(r *http.Request, header string) ([]byte, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	sig := r.Header.Get(header)
	err = api.Verify(s.opts.MerchantKey, sig, r.Method, r.URL.Path, r.Header, body, api.HeaderIdempotencyKey)
	switch {
	case errors.Is(err, api.ErrSignatureMissing):
		return nil, errInvalidSignature(fmt.Sprintf("the %s header is missing: sign every POST to %s with the merchant's key (ES512 detached JWS)",
			header, strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)[0]))
	case err != nil:
		return nil, errInvalidSignature(fmt.Sprintf("the %s header is invalid: %v; check the signing key, the signed path %s and that the body is sent unchanged",
			header, err, r.URL.Path))
	}
	if want := s.opts.MerchantKeyID; want != "" {
		if kid, _ := api.SignatureKeyID(sig); kid != want {
			return nil, errInvalidSignature(fmt.Sprintf("the %s header names key id %q; this sandbox knows the merchant key as %q",
				header, kid, want))
		}
	}
	return body, nil
}
