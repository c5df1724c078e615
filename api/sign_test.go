package api

import (
	"github.com/paydash/paydash/api/testkey"

	"crypto/ecdsa"
	"errors"
	"net/http"
	"testing"
)

// fixedKey is the committed P-521 test key, so signatures are made with a
// known key.
func fixedKey(t testing.TB) *ecdsa.PrivateKey { return testkey.Load(t) }

func TestSignVerify(t *testing.T) {
	key := fixedKey(t)
	body := []byte(`{"amount_in_minor":100}`)
	hdr := http.Header{}
	hdr.Set(HeaderIdempotencyKey, "2d7cb5ca-7f1b-4f5a-9a57-5f0c7c2b3c1e")
	sig, err := Sign(key, "kid-1", "POST", "/v3/payments", []SignedHeader{{HeaderIdempotencyKey, hdr.Get(HeaderIdempotencyKey)}}, body)
	if err != nil {
		t.Fatal(err)
	}
	if kid, err := SignatureKeyID(sig); err != nil || kid != "kid-1" {
		t.Fatalf("kid = %q, %v", kid, err)
	}
	if err := Verify(&key.PublicKey, sig, "POST", "/v3/payments", hdr, body, HeaderIdempotencyKey); err != nil {
		t.Fatalf("valid signature rejected: %v", err)
	}

	flipped := append([]byte(nil), body...)
	flipped[5] ^= 1
	otherHdr := http.Header{}
	otherHdr.Set(HeaderIdempotencyKey, "2d7cb5ca-7f1b-4f5a-9a57-5f0c7c2b3c1f")
	other, _ := GenerateSigningKey()

	cases := []struct {
		name   string
		pub    *ecdsa.PublicKey
		sig    string
		method string
		path   string
		hdr    http.Header
		body   []byte
		want   error
	}{
		{"flipped body byte", &key.PublicKey, sig, "POST", "/v3/payments", hdr, flipped, ErrSignatureInvalid},
		{"other path", &key.PublicKey, sig, "POST", "/v3/mandates", hdr, body, ErrSignatureInvalid},
		{"other method", &key.PublicKey, sig, "PUT", "/v3/payments", hdr, body, ErrSignatureInvalid},
		{"other idempotency key", &key.PublicKey, sig, "POST", "/v3/payments", otherHdr, body, ErrSignatureInvalid},
		{"other key", &other.PublicKey, sig, "POST", "/v3/payments", hdr, body, ErrSignatureInvalid},
		{"missing", &key.PublicKey, "", "POST", "/v3/payments", hdr, body, ErrSignatureMissing},
		{"garbage", &key.PublicKey, "abc.def", "POST", "/v3/payments", hdr, body, ErrSignatureInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(c.pub, c.sig, c.method, c.path, c.hdr, c.body, HeaderIdempotencyKey)
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

func TestVerifyRequiresCoverage(t *testing.T) {
	key := fixedKey(t)
	body := []byte(`{}`)
	sig, err := Sign(key, "k", "POST", "/v3/payments", nil, body)
	if err != nil {
		t.Fatal(err)
	}
	hdr := http.Header{}
	hdr.Set(HeaderIdempotencyKey, "abc")
	if err := Verify(&key.PublicKey, sig, "POST", "/v3/payments", hdr, body, HeaderIdempotencyKey); !errors.Is(err, ErrSignatureInvalid) {
		t.Fatalf("unsigned Idempotency-Key accepted: %v", err)
	}
}

func TestKeyPEMAndJWKSRoundTrip(t *testing.T) {
	key := fixedKey(t)
	pemPriv, err := EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParsePrivateKeyPEM(pemPriv)
	if err != nil || !back.Equal(key) {
		t.Fatalf("private key round trip: %v", err)
	}
	pemPub, _ := EncodePublicKeyPEM(&key.PublicKey)
	pub, err := ParsePublicKeyPEM(pemPub)
	if err != nil || !pub.Equal(&key.PublicKey) {
		t.Fatalf("public key round trip: %v", err)
	}
	jwks, _ := PublicJWKS(&key.PublicKey, "kid-9")
	keys, err := ParseJWKS(jwks)
	if err != nil || !keys["kid-9"].Equal(&key.PublicKey) {
		t.Fatalf("JWKS round trip: %v", err)
	}
	if _, err := ParsePrivateKeyPEM([]byte("junk")); err == nil {
		t.Fatal("junk accepted as a key")
	}
}
