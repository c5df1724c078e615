package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/paydash/paydash/api"
)

// The display methods (String, Format, MarshalJSON, LogValue) have value
// receivers so that printing a Profile value, not only a *Profile, goes
// through them and stays redacted.

// displayProfile is the profile as a person reads it, in the config file's
// key names. Secrets stay Secret, so every encoding of it redacts them.
type displayProfile struct {
	Name             string `toml:"-" json:"name"`
	File             string `toml:"-" json:"file,omitempty"`
	AuthURL          string `toml:"auth_url,omitempty" json:"auth_url,omitempty"`
	BaseURL          string `toml:"base_url,omitempty" json:"base_url,omitempty"`
	PayoutsURL       string `toml:"payouts_url,omitempty" json:"payouts_url,omitempty"`
	ClientID         string `toml:"client_id,omitempty" json:"client_id,omitempty"`
	ClientSecret     Secret `toml:"client_secret,omitempty" json:"client_secret,omitempty"`
	ClientSecretFile string `toml:"client_secret_file,omitempty" json:"client_secret_file,omitempty"`
	ClientSecretEnv  string `toml:"client_secret_env,omitempty" json:"client_secret_env,omitempty"`
	SigningKeyID     string `toml:"signing_key_id,omitempty" json:"signing_key_id,omitempty"`
	SigningKeyFile   string `toml:"signing_key_file,omitempty" json:"signing_key_file,omitempty"`
	RelayListen      string `toml:"relay_listen,omitempty" json:"relay_listen,omitempty"`
	RelayURL         string `toml:"relay_url,omitempty" json:"relay_url,omitempty"`
	RelayPublicURL   string `toml:"relay_public_url,omitempty" json:"relay_public_url,omitempty"`
	RelayToken       Secret `toml:"relay_token,omitempty" json:"relay_token,omitempty"`
	RelayTokenEnv    string `toml:"relay_token_env,omitempty" json:"relay_token_env,omitempty"`
	BalanceRefresh   string `toml:"balance_refresh,omitempty" json:"balance_refresh,omitempty"`
	ReportRefresh    string `toml:"report_refresh,omitempty" json:"report_refresh,omitempty"`
	TrackerKeepFinal int    `toml:"tracker_keep_final,omitempty" json:"tracker_keep_final,omitempty"`
	// ReportCache is shown only when off (the default is on).
	ReportCache      *bool             `toml:"report_cache,omitempty" json:"report_cache,omitempty"`
	TZ               string            `toml:"tz,omitempty" json:"tz,omitempty"`
	Production       bool              `toml:"production" json:"production"`
	Regulated        bool              `toml:"regulated" json:"regulated"`
	PayoutsViaRelay  bool              `toml:"payouts_via_relay,omitempty" json:"payouts_via_relay,omitempty"`
	ReadOnly         bool              `toml:"read_only,omitempty" json:"read_only,omitempty"`
	LowBalance       map[string]string `toml:"low_balance,omitempty" json:"low_balance,omitempty"`
	MerchantAccounts map[string]string `toml:"merchant_accounts,omitempty" json:"merchant_accounts,omitempty"`
	// WebhookLate is one duration, or a table per currency. Where both
	// are set only the table is shown (TOML holds one value per key); the
	// one duration still applies to the currencies the table lacks.
	WebhookLate any `toml:"webhook_late,omitempty" json:"webhook_late,omitempty"`
}

func (p Profile) display() displayProfile {
	d := displayProfile{
		Name: p.Name, File: p.File,
		AuthURL: p.AuthURL, BaseURL: p.BaseURL, PayoutsURL: p.PayoutsURL,
		ClientID: p.ClientID, ClientSecret: p.ClientSecret,
		ClientSecretFile: p.ClientSecretFile, ClientSecretEnv: p.ClientSecretEnv,
		SigningKeyID: p.SigningKeyID, SigningKeyFile: p.SigningKeyFile,
		RelayListen: p.RelayListen, RelayURL: p.RelayURL, RelayPublicURL: p.RelayPublicURL,
		RelayToken: p.RelayToken, RelayTokenEnv: p.RelayTokenEnv,
		BalanceRefresh: formatDuration(p.BalanceRefresh), ReportRefresh: formatDuration(p.ReportRefresh),
		Production: p.Production, Regulated: p.Regulated, TZ: p.TZ, TrackerKeepFinal: p.TrackerKeepFinal, PayoutsViaRelay: p.PayoutsViaRelay,
		ReadOnly: p.ReadOnly,
	}
	if len(p.MerchantAccounts) > 0 {
		d.MerchantAccounts = p.MerchantAccounts
	}
	if !p.ReportCache {
		d.ReportCache = new(bool)
	}
	switch wl := p.WebhookLate; {
	case len(wl.ByCurrency) > 0:
		m := map[string]string{}
		for cur, d := range wl.ByCurrency {
			m[cur] = formatDuration(d)
		}
		d.WebhookLate = m
	case wl.All > 0:
		d.WebhookLate = formatDuration(wl.All)
	}
	// A secret read from a file or variable is shown by where it lives;
	// showing both spellings would not be a valid profile.
	if d.ClientSecretFile != "" || d.ClientSecretEnv != "" {
		d.ClientSecret = ""
	}
	if d.RelayTokenEnv != "" {
		d.RelayToken = ""
	}
	if len(p.LowBalance) > 0 {
		d.LowBalance = make(map[string]string, len(p.LowBalance))
		for cur, minor := range p.LowBalance {
			d.LowBalance[cur] = api.FormatAmountPlain(minor, cur)
		}
	}
	return d
}

// formatDuration writes "1m" rather than time.Duration's "1m0s".
func formatDuration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Redacted renders the profile as a config-file fragment with every secret
// shown as "[redacted]", for `paydash config show`.
func (p *Profile) Redacted() string {
	var b bytes.Buffer
	name := p.Name
	if name == "" {
		name = envOnlyProfile
	}
	from := "environment variables and flags"
	if p.File != "" {
		from = p.File + ", environment variables and flags"
	}
	fmt.Fprintf(&b, "# profile %q resolved from %s; secrets redacted\n", name, from)
	doc := struct {
		Profiles map[string]displayProfile `toml:"profiles"`
	}{map[string]displayProfile{name: p.display()}}
	var body bytes.Buffer
	enc := toml.NewEncoder(&body)
	enc.Indent = ""
	if err := enc.Encode(doc); err != nil {
		// Only plain strings, bools and maps are encoded; this cannot
		// fail, but say so rather than print half a profile.
		fmt.Fprintf(&b, "# cannot render the profile: %v\n", err)
	}
	// The encoder opens the parent table [profiles] on a line of its own;
	// a config file never needs it.
	b.WriteString(strings.Replace(body.String(), "[profiles]\n", "", 1))
	return b.String()
}

// String is a one-line summary without secrets.
func (p Profile) String() string {
	from := "environment"
	if p.File != "" {
		from = p.File
	}
	return fmt.Sprintf("profile %q from %s (base_url %s, payouts_url %s, production=%t)",
		p.Name, from, orNone(p.BaseURL), orNone(p.PayoutsURL), p.Production)
}

func orNone(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// Format implements fmt.Formatter: %v and %s print String, %+v and %#v
// every field with secrets redacted, %q the quoted String.
func (p Profile) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, "config.Profile%+v", p.display())
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "%+v", p.display())
	case verb == 'q':
		fmt.Fprintf(f, "%q", p.String())
	default:
		_, _ = io.WriteString(f, p.String())
	}
}

// MarshalJSON encodes the profile in config-file key names, secrets
// redacted.
func (p Profile) MarshalJSON() ([]byte, error) { return json.Marshal(p.display()) }

// LogValue implements slog.LogValuer: the fields that help debugging, the
// secrets as "[redacted]".
func (p Profile) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", p.Name),
		slog.String("file", p.File),
		slog.String("auth_url", p.AuthURL),
		slog.String("base_url", p.BaseURL),
		slog.String("payouts_url", p.PayoutsURL),
		slog.String("client_id", p.ClientID),
		slog.Any("client_secret", p.ClientSecret),
		slog.String("signing_key_id", p.SigningKeyID),
		slog.String("relay_url", p.RelayURL),
		slog.Any("relay_token", p.RelayToken),
		slog.Bool("production", p.Production),
	)
}
