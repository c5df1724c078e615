package config

import (
	"crypto/ecdsa"
	"fmt"
	"os"
	"strings"

	"github.com/paydash/paydash/api"
)

// problem builds an *Error about this profile.
func (p *Profile) problem(key, format string, args ...any) *Error {
	return &Error{File: p.File, Profile: p.Name, Key: key, Problem: fmt.Sprintf(format, args...)}
}

// SigningKey reads the P-521 private key named by signing_key_file.
func (p *Profile) SigningKey() (*ecdsa.PrivateKey, error) {
	if p.SigningKeyFile == "" {
		return nil, p.problem("signing_key_file", "not set; point it at your PEM signing key (or set %s)", envName("signing_key_file"))
	}
	data, err := os.ReadFile(p.SigningKeyFile)
	if err != nil {
		e := p.problem("signing_key_file", "cannot read the signing key %s: %v", p.SigningKeyFile, pathErrCause(err))
		e.Err = err
		return nil, e
	}
	key, err := api.ParsePrivateKeyPEM(data)
	if err != nil {
		e := p.problem("signing_key_file", "%s is not a usable signing key: %v", p.SigningKeyFile, err)
		e.Err = err
		return nil, e
	}
	return key, nil
}

// APIConfig is the api client configuration of this profile. The URLs,
// client id and client secret are required. The signing key is optional
// (without it the client reads balances and reports but cannot sign), but
// signing_key_id and signing_key_file go together.
func (p *Profile) APIConfig() (api.Config, error) {
	var missing []string
	for _, f := range []struct {
		key string
		set bool
	}{
		{"auth_url", p.AuthURL != ""},
		{"base_url", p.BaseURL != ""},
		{"payouts_url", p.PayoutsURL != ""},
		{"client_id", p.ClientID != ""},
		{"client_secret", p.ClientSecret != ""},
	} {
		if !f.set {
			missing = append(missing, f.key)
		}
	}
	if len(missing) > 0 {
		envs := make([]string, len(missing))
		for i, k := range missing {
			envs[i] = envName(k)
		}
		e := p.problem(strings.Join(missing, ", "), "not set; add to [profiles.%s] (client_secret may also be client_secret_file or client_secret_env) or set %s",
			p.Name, strings.Join(envs, ", "))
		return api.Config{}, e
	}
	cfg := api.Config{
		AuthURL:      p.AuthURL,
		BaseURL:      p.BaseURL,
		PayoutsURL:   p.PayoutsURL,
		ClientID:     p.ClientID,
		ClientSecret: p.ClientSecret.Reveal(),
		SigningKeyID: p.SigningKeyID,
	}
	switch {
	case p.SigningKeyFile == "" && p.SigningKeyID == "":
		return cfg, nil
	case p.SigningKeyID == "":
		return api.Config{}, p.problem("signing_key_id", "not set but signing_key_file is; set the key id the service knows your public key by")
	}
	key, err := p.SigningKey()
	if err != nil {
		return api.Config{}, err
	}
	cfg.SigningKey = key
	return cfg, nil
}
