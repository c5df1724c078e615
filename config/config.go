package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Defaults for keys a profile may leave out.
const (
	DefaultRelayListen    = "127.0.0.1:8787"
	DefaultBalanceRefresh = 10 * time.Second
	DefaultReportRefresh  = 60 * time.Second
	// DefaultTrackerKeepFinal is how many finished payouts of others the
	// dashboard's Payouts tracker keeps; its own and those in flight are
	// always kept, older ones are in the report and the relay.
	DefaultTrackerKeepFinal = 1000
	// minRefresh keeps a typo like "10ms" from hammering the service.
	minRefresh = time.Second
	// envOnlyProfile names the profile built from environment variables
	// and flags alone when there is no config file.
	envOnlyProfile = "default"
)

// ErrNoConfig means no profile is configured at all: no config file and no
// PAYDASH_* settings. main turns it into a friendly pointer to `paydash
// demo` and `paydash config init`.
var ErrNoConfig = errors.New("no paydash profile is configured")

// Profile is one resolved profile: every value typed, defaults applied,
// secrets read from their file or environment variable.
type Profile struct {
	// Name of the profile; File is the config file it came from ("" when
	// built from environment variables and flags alone).
	Name string
	File string

	AuthURL    string
	BaseURL    string
	PayoutsURL string

	ClientID     string
	ClientSecret Secret
	// ClientSecretFile or ClientSecretEnv record where ClientSecret was
	// read from, so `config show` can say so without showing it.
	ClientSecretFile string
	ClientSecretEnv  string

	SigningKeyID   string
	SigningKeyFile string

	RelayListen    string
	RelayURL       string
	RelayPublicURL string
	RelayToken     Secret
	RelayTokenEnv  string

	BalanceRefresh time.Duration
	ReportRefresh  time.Duration
	// TrackerKeepFinal is how many finished payouts of others the
	// Payouts tracker keeps (tracker_keep_final).
	TrackerKeepFinal int
	// ReportCache (report_cache, default true) keeps the transaction
	// report on disk between runs, in the profile's state directory
	// ($XDG_STATE_HOME/paydash/<profile>/report.cache, mode 0600), so
	// the dashboard and `paydash transactions` open at once and fetch
	// only what changed; false keeps none (every run reads the whole
	// report from the service).
	ReportCache bool
	// LowBalance maps a currency to the balance, in minor units, below
	// which the dashboard warns.
	LowBalance map[string]int64
	// MerchantAccounts maps a currency to the id of the merchant account
	// that holds it; the payment and mandate forms offer these accounts.
	// Empty when the profile lists none.
	MerchantAccounts map[string]string
	// WebhookLate is how long a payout's final webhook may take before
	// it is marked late (webhook_late).
	WebhookLate WebhookLate
	// TZ is the dashboard's time zone as configured ("local", "UTC" or an
	// IANA name); Location is it loaded. The CLI and exports stay in UTC.
	TZ       string
	Location *time.Location

	Production bool
	Regulated  bool
	// PayoutsViaRelay sends every payout through the team's hub (the relay
	// at relay_url, with relay_token as the person's own token); such a
	// profile holds no signing key, the hub does.
	PayoutsViaRelay bool
	// ReadOnly (read_only, or the --readonly flag for one run) keeps the
	// profile from sending anything: no form, no payout, payment, mandate
	// or approval. Whether a profile may send is decided in one place,
	// internal/cli/factory, which also treats a profile that can send
	// nothing (no signing key and no hub) as read-only.
	ReadOnly bool
	// Custom is the file's [keys] and [theme], the dashboard's keys and
	// colours (every profile of the file shares them).
	Custom Custom

	// Views are the profile's saved views of the report, in the file's
	// order; StartView and StartTab are where the dashboard opens ("" for
	// its defaults). Only the file sets them (views.go).
	Views     []View
	StartView string
	StartTab  string
}

// LoadOptions say where to look. Zero values mean: path from
// PAYDASH_CONFIG or DefaultPath, profile from PAYDASH_PROFILE or the
// file's default_profile, os.Getenv, no flag overrides.
type LoadOptions struct {
	Path    string // --config
	Profile string // --profile
	Getenv  func(string) string
	// Overrides holds command-line flag values keyed by TOML key name
	// ("base_url", "production", "low_balance.GBP"); they win over the
	// environment and the file.
	Overrides map[string]string
	// CheckFilter checks a saved view's filter (the report's parser);
	// nil leaves filters to be checked where they are used.
	CheckFilter FilterChecker
}

// Warning is a problem that does not stop paydash but that a person
// should fix, such as a world-readable file holding secrets.
type Warning struct {
	File    string
	Message string
}

// String renders the warning for a terminal.
func (w Warning) String() string { return w.File + ": " + w.Message }

// Error is a bad setting. Its message names the file, the profile, the key,
// where an overriding value came from, and what is wrong; it never contains
// a secret.
type Error struct {
	File    string // config file; "" when none was read
	Profile string
	Key     string // TOML key, dotted for table members ("low_balance.GBP")
	Source  string // "" for the file, else the environment variable or "command-line flag"
	Problem string
	Err     error // underlying cause, if any
}

func (e *Error) Error() string {
	parts := []string{"config"}
	if e.File != "" {
		parts = append(parts, e.File)
	}
	if e.Profile != "" {
		parts = append(parts, fmt.Sprintf("profile %q", e.Profile))
	}
	if e.Key != "" {
		k := "key " + e.Key
		if e.Source != "" {
			k += " (set by " + e.Source + ")"
		}
		parts = append(parts, k)
	}
	parts = append(parts, e.Problem)
	return strings.Join(parts, ": ")
}

func (e *Error) Unwrap() error { return e.Err }

// filePath is the config file to read: path, else PAYDASH_CONFIG, else
// DefaultPath; explicit says it was named (by the flag or the variable)
// rather than defaulted.
func filePath(path string, getenv func(string) string) (file string, explicit bool) {
	if path != "" {
		return path, true
	}
	if env := getenv("PAYDASH_CONFIG"); env != "" {
		return env, true
	}
	return DefaultPath(getenv), false
}

// DefaultPath is $XDG_CONFIG_HOME/paydash/config.toml, falling back to
// ~/.config/paydash/config.toml.
func DefaultPath(getenv func(string) string) string {
	return filepath.Join(xdgDir(getenv, "XDG_CONFIG_HOME", ".config"), "paydash", "config.toml")
}

// StateDir is where paydash keeps state (webhook store, history):
// $XDG_STATE_HOME/paydash, falling back to ~/.local/state/paydash.
func StateDir(getenv func(string) string) string {
	return filepath.Join(xdgDir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state")), "paydash")
}

// xdgDir applies the XDG rule: use the variable when it is an absolute
// path, otherwise the fallback under the home directory.
func xdgDir(getenv func(string) string, variable, fallback string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv(variable); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(homeDir(getenv), fallback)
}

func homeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir() // "" leaves a relative path, reported when used
	return h
}

// Load resolves one profile from the config file, the environment and the
// flag overrides (in rising precedence). All bad settings are reported at
// once, joined; errors.Is(err, ErrNoConfig) tells "nothing configured".
func Load(opts LoadOptions) (*Profile, []Warning, error) {
	l := &loader{getenv: opts.Getenv, overrides: opts.Overrides, values: map[string]setting{}}
	if l.getenv == nil {
		l.getenv = os.Getenv
	}
	var explicit bool
	l.file, explicit = filePath(opts.Path, l.getenv)

	doc, err := readFile(l.file)
	switch {
	case errors.Is(err, fs.ErrNotExist) && explicit:
		return nil, nil, &Error{File: l.file, Problem: "file does not exist; create it with `paydash config init`", Err: ErrNoConfig}
	case errors.Is(err, fs.ErrNotExist):
		// Fine: the environment and flags may configure everything.
		l.missing, l.file = l.file, ""
	case err != nil:
		return nil, nil, err
	}
	if doc != nil {
		l.warnings = append(l.warnings, doc.permissionWarnings()...)
	}

	name, err := l.selectProfile(doc, opts.Profile)
	if err != nil {
		return nil, l.warnings, err
	}
	l.profile = name

	l.applyDefaults()
	if doc != nil {
		if table, ok := doc.profiles[name]; ok {
			l.applyFile(doc, table)
			l.applyViews(doc, table, opts.CheckFilter)
		}
	}
	l.applyEnv()
	l.applyOverrides()
	// Values that failed their TOML type check are left out, so build
	// still checks the rest and every problem is reported at once.
	p := l.build()
	p.Views, p.StartView, p.StartTab = l.viewSet.views, l.viewSet.startView, l.viewSet.startTab
	if len(l.errs) > 0 {
		return nil, l.warnings, errors.Join(l.errs...)
	}
	if doc != nil {
		p.Custom = doc.custom.over(l.custom)
	}
	return p, l.warnings, nil
}

// configFile is a parsed config file.
type configFile struct {
	path           string
	mode           fs.FileMode
	md             toml.MetaData
	defaultProfile string
	profiles       map[string]map[string]toml.Primitive
	// custom is the file's [keys] and [theme] (custom.go).
	custom Custom
}

// profileNames lists the file's profiles, sorted.
func (c *configFile) profileNames() []string {
	names := make([]string, 0, len(c.profiles))
	for n := range c.profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// readFile parses the config file's structure (top-level keys and one table
// per profile); values are checked once a profile is chosen.
func readFile(path string) (*configFile, error) {
	f, err := os.Open(path) //nolint:gosec // the config file the user named
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, &Error{File: path, Problem: fmt.Sprintf("cannot read the config file: %v", errors.Unwrap(err)), Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Problem: "cannot stat the config file", Err: err}
	}
	if st.IsDir() {
		return nil, &Error{File: path, Problem: "is a directory, not a config file"}
	}
	var top map[string]toml.Primitive
	md, err := toml.NewDecoder(f).Decode(&top)
	if err != nil {
		return nil, tomlSyntaxError(path, err)
	}
	c := &configFile{path: path, mode: st.Mode().Perm(), md: md, profiles: map[string]map[string]toml.Primitive{}, custom: Custom{File: path}}
	var errs []error
	for _, key := range sortedKeys(top) {
		switch key {
		case "default_profile":
			if err := md.PrimitiveDecode(top[key], &c.defaultProfile); err != nil {
				errs = append(errs, &Error{File: path, Key: key, Problem: "must be a string naming a profile, got " + tomlType(md, key)})
			}
		case "profiles":
			var profiles map[string]toml.Primitive
			if err := decodeTable(md, top[key], &profiles); err != nil {
				errs = append(errs, &Error{File: path, Key: key, Problem: "must be tables like [profiles.sandbox], got " + tomlType(md, key)})
				continue
			}
			for _, name := range sortedKeys(profiles) {
				var table map[string]toml.Primitive
				if err := decodeTable(md, profiles[name], &table); err != nil {
					errs = append(errs, &Error{File: path, Profile: name, Problem: fmt.Sprintf("must be a table [profiles.%s], got %s", name, tomlType(md, "profiles", name))})
					continue
				}
				c.profiles[name] = table
			}
		case "keys":
			keys, kerrs := readKeys(path, md, top[key], "keys")
			c.custom.Keys = keys
			errs = append(errs, kerrs...)
		case "theme":
			th, terrs := readTheme(path, md, top[key], "theme")
			c.custom.Theme = th
			errs = append(errs, terrs...)
		default:
			problem := "unknown top-level key; the file holds default_profile, [profiles.NAME], [keys] and [theme] tables"
			if s := suggestKey(key, []string{"default_profile", "profiles", "keys", "theme"}); s != "" {
				problem = fmt.Sprintf("unknown top-level key (did you mean %s?)", s)
			} else if _, ok := lookupKey(key); ok {
				problem = "is a profile key outside any profile; move it under a [profiles.NAME] table"
			}
			errs = append(errs, &Error{File: path, Key: key, Problem: problem})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// tomlSyntaxError reports a TOML syntax error by line. The parser's own
// message can quote part of the value; when the value belongs to a secret
// key it is replaced so the secret cannot leak.
func tomlSyntaxError(path string, err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &Error{File: path, Problem: "not valid TOML", Err: err}
	}
	msg := pe.Message
	if k := pe.LastKey; k != "" {
		parts := strings.Split(k, ".")
		if spec, ok := lookupKey(parts[len(parts)-1]); ok && spec.kind == kindSecret {
			msg = "the value is hidden because it is a secret; write it in double quotes"
		}
		msg = fmt.Sprintf("after key %s: %s", k, msg)
	}
	return &Error{File: path, Problem: fmt.Sprintf("line %d: not valid TOML: %s", pe.Position.Line, msg)}
}

// errNotTable reports a value that should have been a table.
var errNotTable = errors.New("not a table")

// decodeTable decodes a TOML table into a map of its members. The TOML
// library silently leaves the map nil when the value is not a table, so
// the shape is checked first (MetaData.Type cannot tell: it knows nothing
// of tables defined implicitly by [a.b] headers).
func decodeTable(md toml.MetaData, prim toml.Primitive, into *map[string]toml.Primitive) error {
	var v any
	if err := md.PrimitiveDecode(prim, &v); err != nil {
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return errNotTable
	}
	return md.PrimitiveDecode(prim, into)
}

// tomlType names the TOML type of a key for an error message.
func tomlType(md toml.MetaData, key ...string) string {
	t := strings.ToLower(md.Type(key...))
	switch t {
	case "":
		return "something else"
	case "hash":
		return "a table"
	case "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// permissionWarnings warns when a file holding inline secrets can be read
// by group or others.
func (c *configFile) permissionWarnings() []Warning {
	if runtime.GOOS == "windows" || c.mode&0o077 == 0 {
		return nil
	}
	var holders []string
	for _, name := range c.profileNames() {
		for _, key := range []string{"client_secret", "relay_token"} {
			if _, ok := c.profiles[name][key]; ok {
				holders = append(holders, fmt.Sprintf("%s in profile %q", key, name))
			}
		}
	}
	if len(holders) == 0 {
		return nil
	}
	return []Warning{{File: c.path, Message: fmt.Sprintf(
		"holds %s but other users can read it (mode %04o); run: chmod 600 %s",
		strings.Join(holders, ", "), c.mode, c.path)}}
}

// selectProfile picks the profile: --profile, then PAYDASH_PROFILE, then
// default_profile, then the only profile there is.
func (l *loader) selectProfile(doc *configFile, flag string) (string, error) {
	name := flag
	if name == "" {
		name = l.getenv("PAYDASH_PROFILE")
	}
	var names []string
	if doc != nil {
		names = doc.profileNames()
		if name == "" {
			name = doc.defaultProfile
		}
	}
	if len(names) == 0 {
		// No profile tables: only the environment and flags can
		// configure paydash.
		if !l.envOrFlagsConfigure() {
			where := "no config file at " + l.missing
			if doc != nil {
				where = doc.path + " has no [profiles.NAME] table"
			}
			return "", fmt.Errorf("%w: %s; try `paydash demo`, or create a config file with `paydash config init`", ErrNoConfig, where)
		}
		if name == "" {
			name = envOnlyProfile
		}
		return name, nil
	}
	switch {
	case name == "" && len(names) == 1:
		return names[0], nil
	case name == "":
		return "", &Error{File: l.file, Problem: fmt.Sprintf(
			"no profile selected and the file has several (%s); set default_profile, PAYDASH_PROFILE or --profile",
			strings.Join(names, ", "))}
	case !slices.Contains(names, name):
		return "", &Error{File: l.file, Profile: name, Problem: fmt.Sprintf(
			"profile not found; the file has: %s", strings.Join(names, ", "))}
	}
	return name, nil
}

// envOrFlagsConfigure reports whether any PAYDASH_* key variable or flag
// override is set, which is enough to run without a config file.
func (l *loader) envOrFlagsConfigure() bool {
	if len(l.overrides) > 0 {
		return true
	}
	for _, name := range keyNames() {
		if l.getenv(envName(name)) != "" {
			return true
		}
	}
	return false
}
