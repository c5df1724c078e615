package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// template is the file `paydash config init` writes. Every key is shown,
// set or commented out, with what it is for; TestTemplate keeps it in step
// with the keys Load accepts.
const template = `# paydash configuration.
#
# Each [profiles.NAME] table is one environment. Pick one with --profile,
# PAYDASH_PROFILE, or default_profile below. Any key can be overridden by an
# environment variable PAYDASH_<KEY> (e.g. PAYDASH_BASE_URL), and flags
# override both. "paydash config show" prints the result, secrets redacted.
#
# This file may hold secrets: keep it readable by you only (chmod 600), or
# better, keep secrets out of it with client_secret_file/client_secret_env.

default_profile = "sandbox"

# The dashboard's keys and colours, for every profile (a profile may lay
# its own over them in [profiles.NAME.keys] and [profiles.NAME.theme]).
# Any action of the ? help, in snake case, takes one key or a list:
# [keys]
# quit = "Q"
# copy_id = ["I", "ctrl+y"]
# A base theme (auto, dark, light, high-contrast or mono) and any style:
# [theme]
# base = "high-contrast"
# header = { fg = "#ffaa00", bold = true }

[profiles.sandbox]
# Token endpoint base: paydash POSTs {auth_url}/connect/token.
auth_url = "https://auth.sandbox.example.com"
# Payments and mandates interface: {base_url}/v3/payments, /v3/mandates.
base_url = "https://api.sandbox.example.com"
# Payout interface: {payouts_url}/v1/balances, /v1/payouts, /v1/transactions.
payouts_url = "https://payouts.sandbox.example.com"

# OAuth client credentials from the developer console.
client_id = "replace-with-your-sandbox-client-id"
# The client secret: set exactly ONE of these three.
#   inline (then this file must be chmod 600):
# client_secret = "..."
#   in a file holding only the secret (relative paths are relative to
#   this file's directory; ~/ is your home directory):
# client_secret_file = "sandbox-client-secret"
#   in an environment variable, named here:
# client_secret_env = "PAYDASH_SANDBOX_CLIENT_SECRET"

# Request signing (ES512 on a P-521 key). signing_key_id is the kid the
# service knows your public key by; signing_key_file is the PEM private key.
# Without them paydash can read balances and reports but not send payouts,
# payments or mandates.
# signing_key_id = "replace-with-your-key-id"
# signing_key_file = "sandbox-signing-key.pem"

# Webhook relay ("paydash relay"): the address it listens on, the websocket
# URL the dashboard subscribes to (default ws://<relay_listen>/ws), and the
# public URL you register as webhook_uri (e.g. a tunnel to relay_listen).
relay_listen = "127.0.0.1:8787"
# relay_url = "ws://127.0.0.1:8787/ws"
# relay_public_url = "https://hooks.example.com"
# Bearer token the relay requires of subscribers; needed when relay_listen
# is not a loopback address. Set at most one of:
# relay_token = "..."
# relay_token_env = "PAYDASH_RELAY_TOKEN_SECRET"

# How often the dashboard refreshes balances and the transaction report
# (Go durations: "10s", "1m30s"; at least 1s).
balance_refresh = "10s"
report_refresh = "60s"

# How many finished payouts of others the dashboard's Payouts tracker keeps
# (newest first); this profile's own, those followed from the report (p)
# and those in flight are always kept.
# Older ones are in the report and the relay (paydash events tail).
tracker_keep_final = 1000

# The transaction report is kept on disk between runs (in this profile's
# state directory, $XDG_STATE_HOME/paydash/<profile>/report.cache, mode
# 0600), so the dashboard opens at once and fetches only what changed;
# false keeps none. "paydash cache status" and "paydash cache clear" shows and drops it.
# report_cache = true

# The dashboard's time zone: "local" (this machine's), "UTC", or a name
# like "Europe/London". The header names it and date:today follows it;
# the headless commands and exports always write UTC.
tz = "local"

# true marks this profile as real money: paydash shows it loudly.
production = false
# true if you hold a payment-initiation licence: user details become
# optional and mandate references are allowed.
regulated = false
# Team mode: true sends every payout through the team's hub (the relay at
# relay_url, relay_token being your own token from paydash relay user
# add), which applies approvals; such a profile holds no signing key.
# payouts_via_relay = true
# true makes this profile read-only: it reads balances, the report and
# webhooks, and sends nothing (no forms; payout, payment and mandate
# create and approvals refuse with exit 6). paydash --readonly does the
# same for one run. A profile with no signing key and no hub is read-only
# anyway.
# read_only = true

# Your merchant accounts' ids, one per currency (optional; UUIDs from the
# developer console): the payment and mandate forms then offer them in a
# list, and catch a payment into an account of another currency, instead
# of asking for the id as text.
# merchant_accounts = { GBP = "00000000-0000-0000-0000-000000000000", EUR = "00000000-0000-0000-0000-000000000000" }

# How long a payout's final webhook (settled, executed, failed, rejected)
# may take before the tracker, the Events view and paydash events missing
# mark it late: one duration ("30m", "2d"), or per currency. Defaults follow
# the rail: 15m for GBP (Faster Payments), 2d for EUR (SEPA credit transfer).
# webhook_late = { GBP = "15m", EUR = "2d" }

# Where the dashboard opens: a saved view below, and a tab (balances,
# transactions, payouts, events, payout, payment, mandate, approvals).
# start_view = "failed-gbp"
# start_tab = "transactions"

# Warn when a payout account's balance falls below these amounts (major
# units, in quotes).
[profiles.sandbox.low_balance]
GBP = "1000.00"
EUR = "1000.00"

# Saved views of the transaction report, opened with :view NAME in the
# dashboard and paydash transactions --view NAME (the same rows). The
# filter is the dashboard's filter language; sort is a column then asc or
# desc; columns lists the report's columns to show, in order (time, type,
# status, cur, amount, beneficiary, iban, reference, id), tracker_columns
# the Payouts tracker's (id, beneficiary, amount, state, timeline); window
# is today, 7d, 30d or all. :save NAME in the dashboard appends one here.
#
# [[profiles.sandbox.views]]
# name = "failed-gbp"
# filter = "status:failed cur:GBP"
# sort = "amount desc"
# columns = ["time", "amount", "status", "beneficiary", "reference"]
# window = "7d"

# A production profile looks the same with production = true:
#
# [profiles.production]
# auth_url = "https://auth.example.com"
# base_url = "https://api.example.com"
# payouts_url = "https://payouts.example.com"
# client_id = "..."
# client_secret_env = "PAYDASH_PRODUCTION_CLIENT_SECRET"
# signing_key_id = "..."
# signing_key_file = "~/.config/paydash/production-signing-key.pem"
# production = true
`

// Template returns a commented config file with a sandbox profile that
// explains every key.
func Template() []byte { return []byte(template) }

// WriteTemplate writes Template to path, creating its directory (0700) and
// the file (0600). It never overwrites an existing file.
func WriteTemplate(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the config directory for %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // the config path the user named; created, never overwritten
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; edit it, or move it away to write a fresh template: %w", path, err)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.Write(Template()); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
