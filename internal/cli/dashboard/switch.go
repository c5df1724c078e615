package dashboard

import (
	"context"
	"errors"
	"io"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/ui"
)

// Run opens the dashboard on the configured profile, and again on each
// profile the operator switches to with :profile NAME, until they quit.
func Run(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global) error {
	if s.Trace != nil && s.ErrTerminal {
		// The dashboard owns the terminal: a trace there would tear the
		// screen. It traces with stderr redirected (--debug 2>trace.log).
		q := *s
		q.Trace = nil
		s = &q
	}
	for {
		err := runProfile(ctx, s, g)
		var sw *ui.SwitchProfile
		if !errors.As(err, &sw) {
			return err
		}
		next := *g
		next.Profile = sw.Name
		g = &next
	}
}

// profileChecker answers the dashboard's question about a profile named
// on its command line: whether it loads and builds a client (so the
// switch cannot land on a profile that fails to open), and whether it
// moves real money. Config warnings are not printed: the dashboard owns
// the screen.
func profileChecker(s *cmdutil.Streams, g *cmdutil.Global) func(string) (ui.ProfileInfo, error) {
	quiet := *s
	quiet.Err = io.Discard
	return func(name string) (ui.ProfileInfo, error) {
		next := *g
		next.Profile = name
		p, err := cmdutil.LoadProfileIfAny(&quiet, &next)
		if err != nil {
			return ui.ProfileInfo{Name: name}, err
		}
		if p == nil {
			return ui.ProfileInfo{Name: name}, errors.New("no config file holds it")
		}
		f := factory.ForProfile(&quiet, p)
		if _, err := f.Client(); err != nil {
			return ui.ProfileInfo{Name: name}, err
		}
		// A team profile opens on its hub too (the Approvals view).
		if _, err := f.Hub(); err != nil {
			return ui.ProfileInfo{Name: name}, err
		}
		return ui.ProfileInfo{Name: p.Name, Production: p.Production}, nil
	}
}
