package cmdutil

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// periodValue wraps a duration flag so it takes periods as people write
// them ("7d", "7 days", "36h", "1h30m") and shows its value that way
// ("7 days", not "168h0m0s"). The wrapped flag keeps its variable: Set
// passes the parsed period on in Go's own form.
type periodValue struct{ pflag.Value }

func (p periodValue) Set(s string) error {
	d, ok := ParsePeriod(s)
	if !ok {
		return fmt.Errorf("want a period such as 7d, 24h, 90m or \"7 days\"")
	}
	return p.Value.Set(d.String())
}

func (p periodValue) String() string {
	d, err := time.ParseDuration(p.Value.String())
	if err != nil || d == 0 {
		return "0"
	}
	return HumanDuration(d)
}

// HumanPeriods makes every duration flag of cmd and its subcommands take
// and show periods as people write them.
func HumanPeriods(cmd *cobra.Command) {
	wrap := func(f *pflag.Flag) {
		if f.Value.Type() != "duration" {
			return
		}
		if _, done := f.Value.(periodValue); done {
			return
		}
		f.Value = periodValue{f.Value}
		f.DefValue = f.Value.String()
	}
	cmd.LocalNonPersistentFlags().VisitAll(wrap)
	cmd.PersistentFlags().VisitAll(wrap)
	for _, c := range cmd.Commands() {
		HumanPeriods(c)
	}
}
