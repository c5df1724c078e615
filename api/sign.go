package api

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// Request signing: a JWS (RFC 7515) with a detached payload, ES512 over a
// P-521 key. The protected header is {alg, kid, tl_version "2",
// tl_headers "Name1,Name2"}, and the signed payload is
//
//	METHOD /path\n
//	Name1: value1\n
//	Name2: value2\n
//	<raw body>
//
// so the signature covers the method, the path, the listed headers and the
// body byte for byte. The document leaves the algorithm "not shown"; this is
// the scheme the sandbox and the relay verify with Verify.

// Errors Verify wraps, so callers can tell "missing" from "invalid".
var (
	ErrSignatureMissing = errors.New("signature header missing")
	ErrSignatureInvalid = errors.New("signature invalid")
)

// SignedHeader is one header covered by a signature, in signing order.
type SignedHeader struct {
	Name  string
	Value string
}

// SigningPayload builds the bytes a signature covers.
func SigningPayload(method, path string, headers []SignedHeader, body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(method) + len(path) + len(body) + 64)
	b.WriteString(strings.ToUpper(method))
	b.WriteByte(' ')
	b.WriteString(path)
	b.WriteByte('\n')
	for _, h := range headers {
		b.WriteString(h.Name)
		b.WriteString(": ")
		b.WriteString(h.Value)
		b.WriteByte('\n')
	}
	b.Write(body)
	return b.Bytes()
}

// Sign returns the detached compact JWS ("header..signature") for a request.
func Sign(key *ecdsa.PrivateKey, keyID, method, path string, headers []SignedHeader, body []byte) (string, error) {
	return SignJKU(key, keyID, "", method, path, headers, body)
}

// SignJKU is Sign with a jku protected header (when jku is not empty): the
// URL of the JWKS holding the key, as the service puts on its webhooks. A
// verifier must only follow a jku it trusts (see SignatureSource).
func SignJKU(key *ecdsa.PrivateKey, keyID, jku, method, path string, headers []SignedHeader, body []byte) (string, error) {
	if key == nil {
		return "", errors.New("sign: no signing key configured")
	}
	names := make([]string, len(headers))
	for i, h := range headers {
		names[i] = h.Name
	}
	opts := (&jose.SignerOptions{}).
		WithHeader("kid", keyID).
		WithHeader("tl_version", "2").
		WithHeader("tl_headers", strings.Join(names, ","))
	if jku != "" {
		opts = opts.WithHeader("jku", jku)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES512, Key: key}, opts)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	obj, err := signer.Sign(SigningPayload(method, path, headers, body))
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	return obj.DetachedCompactSerialize()
}

// SignatureKeyID returns the kid a signature names, so a verifier holding
// several keys (a JWKS) can pick one. It does not verify anything.
func SignatureKeyID(signature string) (string, error) {
	obj, err := parseSignature(signature)
	if err != nil {
		return "", err
	}
	return obj.Signatures[0].Protected.KeyID, nil
}

// SignatureSource returns the kid and the jku (empty when absent) a
// signature names, so a verifier can pick the key set. It verifies nothing.
func SignatureSource(signature string) (kid, jku string, err error) {
	obj, err := parseSignature(signature)
	if err != nil {
		return "", "", err
	}
	prot := obj.Signatures[0].Protected
	if v, ok := prot.ExtraHeaders["jku"]; ok {
		if jku, ok = v.(string); !ok || jku == "" {
			return "", "", fmt.Errorf("%w: jku must be a URL string", ErrSignatureInvalid)
		}
	}
	return prot.KeyID, jku, nil
}

func parseSignature(signature string) (*jose.JSONWebSignature, error) {
	if strings.TrimSpace(signature) == "" {
		return nil, ErrSignatureMissing
	}
	obj, err := jose.ParseSignedCompact(signature, []jose.SignatureAlgorithm{jose.ES512})
	if err != nil {
		return nil, fmt.Errorf("%w: not a detached ES512 JWS: %w", ErrSignatureInvalid, err)
	}
	if len(obj.Signatures) != 1 {
		return nil, fmt.Errorf("%w: want exactly one signature", ErrSignatureInvalid)
	}
	return obj, nil
}

// Verify checks a request signature made by Sign against pub. header is the
// request's headers: the values of the headers the signature lists in
// tl_headers are read from it. Every header named in mustCover that the
// request carries must be covered by the signature, so an Idempotency-Key
// or webhook timestamp cannot be swapped under a valid signature.
func Verify(pub *ecdsa.PublicKey, signature, method, path string, header http.Header, body []byte, mustCover ...string) error {
	if pub == nil {
		return errors.New("verify: no public key configured")
	}
	obj, err := parseSignature(signature)
	if err != nil {
		return err
	}
	prot := obj.Signatures[0].Protected
	if v, _ := prot.ExtraHeaders["tl_version"].(string); v != "2" {
		return fmt.Errorf("%w: tl_version must be \"2\"", ErrSignatureInvalid)
	}
	list, _ := prot.ExtraHeaders["tl_headers"].(string)
	var signed []SignedHeader
	covered := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		covered[http.CanonicalHeaderKey(name)] = true
		signed = append(signed, SignedHeader{Name: name, Value: header.Get(name)})
	}
	for _, name := range mustCover {
		if header.Get(name) != "" && !covered[http.CanonicalHeaderKey(name)] {
			return fmt.Errorf("%w: header %s is not covered by the signature", ErrSignatureInvalid, name)
		}
	}
	if err := obj.DetachedVerify(SigningPayload(method, path, signed, body), pub); err != nil {
		return fmt.Errorf("%w: does not match the method, path, signed headers and body", ErrSignatureInvalid)
	}
	return nil
}

// GenerateSigningKey makes a new P-521 key for ES512 signing.
func GenerateSigningKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
}

// EncodePrivateKeyPEM writes key as a PKCS#8 "PRIVATE KEY" PEM block.
func EncodePrivateKeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// ParsePrivateKeyPEM reads a P-521 EC private key in PKCS#8 or SEC 1 PEM.
func ParsePrivateKeyPEM(data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found: expected an EC private key (openssl ecparam -name secp521r1 -genkey -noout)")
	}
	var key *ecdsa.PrivateKey
	switch block.Type {
	case "EC PRIVATE KEY":
		k, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("EC private key: %w", err)
		}
		key = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PKCS#8 private key: %w", err)
		}
		ec, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("private key is %T, want an EC P-521 key", k)
		}
		key = ec
	default:
		return nil, fmt.Errorf("PEM block is %q, want an EC private key", block.Type)
	}
	if key.Curve != elliptic.P521() {
		return nil, fmt.Errorf("key is on curve %s, ES512 needs P-521", key.Curve.Params().Name)
	}
	return key, nil
}

// EncodePublicKeyPEM writes pub as a PKIX "PUBLIC KEY" PEM block.
func EncodePublicKeyPEM(pub *ecdsa.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// ParsePublicKeyPEM reads a P-521 EC public key in PKIX PEM.
func ParsePublicKeyPEM(data []byte) (*ecdsa.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found: expected an EC public key")
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	pub, ok := k.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P521() {
		return nil, errors.New("public key is not an EC P-521 key")
	}
	return pub, nil
}

// PublicJWKS renders pub as a JSON Web Key Set with one key named kid.
func PublicJWKS(pub *ecdsa.PublicKey, kid string) ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, KeyID: kid, Algorithm: string(jose.ES512), Use: "sig"}}}
	return json.Marshal(set)
}

// ParseJWKS reads a JSON Web Key Set and returns its EC P-521 keys by kid.
func ParseJWKS(data []byte) (map[string]*ecdsa.PublicKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	keys := map[string]*ecdsa.PublicKey{}
	for _, k := range set.Keys {
		if pub, ok := k.Key.(*ecdsa.PublicKey); ok && pub.Curve == elliptic.P521() {
			keys[k.KeyID] = pub
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("JWKS holds no EC P-521 key")
	}
	return keys, nil
}
