package factory

import (
	"fmt"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// ReadOnlyHelp is the paragraph each sending command's Long help ends
// with: what a read-only profile does to it, and its exit code.
const ReadOnlyHelp = `On a read-only profile (read_only = true, the --readonly flag, or a
profile with no signing key and no hub) it sends nothing and checks
nothing: it says why in one sentence and exits 6.`

// ReadOnly says whether profile p may send nothing, and why, in a
// sentence short enough for the dashboard's status line ("" when it may
// send); the commands' refusal adds what to do. It is the one
// place that decides: the sending commands refuse with it, and the
// dashboard hides its forms and send actions with it. A profile is
// read-only when it says so (read_only = true, or --readonly for one
// run), or when it has no way to send: no signing key of its own and no
// team hub to sign for it.
func ReadOnly(p *config.Profile) string {
	switch {
	case p.ReadOnly:
		return Declared(p.Name)
	case SendsDirectly(p) && p.SigningKeyFile == "":
		return fmt.Sprintf("profile %q can send nothing: it has no signing key and no team hub", p.Name)
	}
	return ""
}

// Declared is why a profile said read-only (read_only = true, or the
// global --readonly) may send nothing.
func Declared(profile string) string {
	return fmt.Sprintf("profile %q is read-only (read_only, or --readonly): it sends nothing", profile)
}

// RefuseReadOnly is the error a sending command ends with on a
// read-only profile (exit 6), nil on a profile that may send. It is
// asked before anything else is read, checked or sent; a profile that
// does not load is left to the command to report as it always has.
func (f *Factory) RefuseReadOnly() error {
	p, err := f.peekProfile()
	if err != nil || p == nil {
		return nil
	}
	return refusal(p)
}

// RefuseDecisions is RefuseReadOnly for an approver's approve or reject
// on the hub at hubURL ("" = the profile's relay_url): the hub signs and
// sends, so an approver needs no signing key of their own. A profile said
// read-only is refused; one without a key is refused only when it has no
// hub either (no payouts_via_relay, no relay_token, no --hub).
func (f *Factory) RefuseDecisions(hubURL string) error {
	p, err := f.peekProfile()
	if err != nil || p == nil {
		return nil
	}
	if !p.ReadOnly && (hubURL != "" || p.RelayToken.Reveal() != "") {
		return nil
	}
	return refusal(p)
}

// refusal is ReadOnly as the error of a command.
func refusal(p *config.Profile) error {
	why := ReadOnly(p)
	if why == "" {
		return nil
	}
	remedy := "use a profile that may send"
	if !p.ReadOnly {
		remedy = "give it signing_key_id and signing_key_file, or use a profile that has them"
	}
	return cmdutil.Exit(cmdutil.ExitReadOnly, fmt.Errorf("nothing was sent: %s; %s", why, remedy))
}

// peekProfile is the run's profile when it is loaded already, else the
// profile read quietly (no warnings printed, no pointer to the demo):
// the refusal comes before anything else a command says, and a profile
// that does not load is reported by the command's own load later.
func (f *Factory) peekProfile() (*config.Profile, error) {
	if f.loaded {
		return f.profile, f.profileErr
	}
	ov, err := f.global.Overrides()
	if err != nil {
		return nil, err
	}
	p, _, err := config.Load(config.LoadOptions{Path: f.global.ConfigPath, Profile: f.global.Profile, Getenv: f.streams.Getenv, Overrides: ov})
	return p, err
}

// mustSend loads the profile and refuses a read-only one, before its
// client is built: every sender the factory hands out asks it first.
func (f *Factory) mustSend() error {
	p, err := f.Profile()
	if err != nil {
		return err
	}
	return refusal(p)
}
