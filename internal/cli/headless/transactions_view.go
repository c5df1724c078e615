package headless

import (
	"fmt"
	"strings"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// UseView puts the profile's saved view --view names into the filter:
// its filter and window, read by the same parser as the dashboard's
// filter bar, so `transactions --view NAME` keeps the rows `:view NAME`
// shows. Other flags narrow it further. An unknown name is a usage error
// listing the profile's views.
func (o *TransactionsOptions) UseView(p *config.Profile) error {
	if o.View == "" {
		return nil
	}
	v, ok := p.ViewByName(o.View)
	if !ok {
		names := p.ViewNames()
		if len(names) == 0 {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--view %s: profile %s has no saved views; add a [[profiles.%s.views]] table to %s, or save one from the dashboard (:save NAME)",
				o.View, p.Name, p.Name, p.File))
		}
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--view %s: profile %s has no such view; its views: %s", o.View, p.Name, strings.Join(names, ", ")))
	}
	o.Filter = strings.TrimSpace(v.Query() + " " + o.Filter)
	if o.Sort == "" && v.Sort != "" {
		// The view's order, as :view shows it, unless --sort says
		// otherwise ("amount desc" is --sort amount:desc).
		col, desc := config.SortOf(v.Sort)
		o.Sort = col
		if strings.Contains(v.Sort, " ") {
			o.Sort += map[bool]string{true: ":desc", false: ":asc"}[desc]
		}
	}
	if err := o.Check(); err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("view %s: %w", v.Name, err))
	}
	return nil
}
