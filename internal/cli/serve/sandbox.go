package serve

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// SandboxOptions are the flags of `paydash sandbox`.
type SandboxOptions struct {
	Listen          string
	ClientID        string
	ClientSecret    string
	MerchantKeyFile string
	MerchantKeyID   string
	WebhookURI      string
	StepDelay       time.Duration
	History         int
	Seed            int64
	HistoryDays     int
	Regulated       bool
	AllowedHosts    []string
	JSON            bool
	Verbose         bool
}

// Bind registers the flags.
func (o *SandboxOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:8080", "address to listen on (127.0.0.1:0 picks a free port)")
	fs.StringVar(&o.ClientID, "client-id", sandbox.DefaultClientID, "client id the token endpoint accepts")
	fs.StringVar(&o.ClientSecret, "client-secret", "", "client secret the token endpoint accepts (default $PAYDASH_SANDBOX_CLIENT_SECRET, else one generated once and kept in the state directory)")
	fs.StringVar(&o.MerchantKeyFile, "merchant-key", "", "PEM file with the merchant's P-521 public key that verifies request signatures (default: generate a key pair and print where the private key is)")
	fs.StringVar(&o.MerchantKeyID, "merchant-key-id", "", "require this kid on request signatures (default with a generated key: paydash-sandbox)")
	fs.StringVar(&o.WebhookURI, "webhook-uri", "", "where webhooks are POSTed, e.g. http://127.0.0.1:8787/webhooks (a running paydash relay)")
	fs.DurationVar(&o.StepDelay, "step-delay", 2*time.Second, "wait between payout states (authorised, submitted, settled)")
	fs.IntVar(&o.History, "history", 0, "number of past transactions to seed")
	fs.Int64Var(&o.Seed, "seed", 1, "seed of the history: the same seed gives the same report")
	fs.IntVar(&o.HistoryDays, "history-days", sandbox.DefaultHistoryDays, "how many days back the history goes")
	fs.BoolVar(&o.Regulated, "regulated", false, "validate as for a regulated merchant (user details optional, mandate reference allowed)")
	fs.StringSliceVar(&o.AllowedHosts, "allowed-host", nil, "host name clients may use besides localhost and the listen address, e.g. this machine's name with --listen 0.0.0.0:8080 (repeatable)")
	fs.BoolVar(&o.JSON, "json", false, "print the URLs and credentials as one JSON object")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "log every request and webhook delivery on stderr")
}

// SandboxInfo is what `paydash sandbox` prints: what a client needs.
type SandboxInfo struct {
	sandbox.Info
	SigningKeyID   string `json:"signing_key_id,omitempty"`
	SigningKeyFile string `json:"signing_key_file,omitempty"`
	WebhookURI     string `json:"webhook_uri"`
}

// generatedKeyID is the kid of a key pair the sandbox command generates.
const generatedKeyID = "paydash-sandbox"

// Sandbox runs the standalone sandbox until ctx is done.
func Sandbox(ctx context.Context, s *cmdutil.Streams, o *SandboxOptions) error {
	dir := filepath.Join(config.StateDir(s.Getenv), "sandbox")
	info := SandboxInfo{}
	var pub *ecdsa.PublicKey
	keyID := o.MerchantKeyID
	if o.MerchantKeyFile != "" {
		data, err := os.ReadFile(o.MerchantKeyFile)
		if err != nil {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--merchant-key: %w", err))
		}
		if pub, err = api.ParsePublicKeyPEM(data); err != nil {
			// A private key file works too: its public half is used.
			priv, perr := api.ParsePrivateKeyPEM(data)
			if perr != nil {
				return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--merchant-key %s: not a P-521 public (or private) key PEM: %w", o.MerchantKeyFile, err))
			}
			pub = &priv.PublicKey
		}
	} else {
		path := filepath.Join(dir, "merchant-signing-key.pem")
		key, _, err := LoadOrCreateKey(path)
		if err != nil {
			return err
		}
		pub = &key.PublicKey
		if keyID == "" {
			keyID = generatedKeyID
		}
		info.SigningKeyFile, info.SigningKeyID = path, keyID
	}
	secret := o.ClientSecret
	if secret == "" {
		secret = s.Env("PAYDASH_SANDBOX_CLIENT_SECRET")
	}
	if secret == "" {
		var err error
		if secret, err = LoadOrCreateSecret(filepath.Join(dir, "client-secret"), "sbx_secret_"); err != nil {
			return err
		}
	}
	logger := slog.New(slog.DiscardHandler)
	if o.Verbose {
		logger = slog.New(slog.NewTextHandler(s.Err, nil))
	}
	srv, err := sandbox.Listen(ctx, o.Listen, sandbox.Options{
		ClientID: o.ClientID, ClientSecret: secret, MerchantKey: pub, MerchantKeyID: keyID,
		WebhookURI: o.WebhookURI, StepDelay: o.StepDelay, History: o.History, HistorySeed: o.Seed,
		HistoryDays: o.HistoryDays, Regulated: o.Regulated, Logger: logger, AllowedHosts: o.AllowedHosts,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	info.Info = srv.Info()
	info.WebhookURI = srv.WebhookURI()
	if o.JSON {
		if err := cmdutil.WriteCompactJSON(s.Out, info); err != nil {
			return err
		}
	} else {
		printSandbox(s.Out, info)
	}
	<-ctx.Done()
	return srv.Close()
}

func printSandbox(w io.Writer, info SandboxInfo) {
	fmt.Fprintf(w, "paydash sandbox listening on %s\n\n", info.BaseURL)
	pairs := [][2]string{
		{"auth_url", info.AuthURL}, {"base_url", info.BaseURL}, {"payouts_url", info.PayoutsURL},
		{"client_id", info.ClientID}, {"client_secret", info.ClientSecret},
	}
	if info.SigningKeyFile != "" {
		pairs = append(pairs, [2]string{"signing_key_id", info.SigningKeyID}, [2]string{"signing_key_file", info.SigningKeyFile + " (private key; generated for you)"})
	}
	webhook := info.WebhookURI
	if webhook == "" {
		webhook = "(none: set with --webhook-uri or PUT " + info.ControlURL + "/webhook)"
	}
	pairs = append(pairs, [2]string{"webhook_uri", webhook}, [2]string{"webhook keys", info.JWKSURL}, [2]string{"control", info.ControlURL + " (GET it for the list and the magic rules)"})
	_ = cmdutil.KeyValues(w, pairs)
	fmt.Fprintln(w, "\nPoint paydash at it from another terminal:")
	fmt.Fprintf(w, "  export PAYDASH_AUTH_URL=%s PAYDASH_BASE_URL=%s PAYDASH_PAYOUTS_URL=%s\n", info.AuthURL, info.BaseURL, info.PayoutsURL)
	fmt.Fprintf(w, "  export PAYDASH_CLIENT_ID=%s PAYDASH_CLIENT_SECRET=%s\n", info.ClientID, info.ClientSecret)
	if info.SigningKeyFile != "" {
		fmt.Fprintf(w, "  export PAYDASH_SIGNING_KEY_ID=%s PAYDASH_SIGNING_KEY_FILE=%s\n", info.SigningKeyID, info.SigningKeyFile)
	}
	fmt.Fprintln(w, "  paydash balances")
	fmt.Fprintln(w, "\nctrl+c stops it.")
}
