package cmdutil

import (
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestDurationFlagsTakePeriodsAsPeopleWriteThem: --duplicate-window 7d,
// --wait "2 minutes": every duration flag takes what --since takes, and
// help shows "7 days", not "168h0m0s".
func TestDurationFlagsTakePeriodsAsPeopleWriteThem(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 168 * time.Hour, "7 days": 168 * time.Hour, "36h": 36 * time.Hour, "1h30m": 90 * time.Minute, "2 minutes": 2 * time.Minute} {
		var d time.Duration
		root := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		root.Flags().DurationVar(&d, "window", 168*time.Hour, "how far back")
		HumanPeriods(root)
		if got := root.Flags().Lookup("window").DefValue; got != "7 days" {
			t.Errorf("default shown as %q, want \"7 days\"", got)
		}
		root.SetArgs([]string{"--window", in})
		if err := root.Execute(); err != nil || d != want {
			t.Errorf("--window %q: %v, %v; want %v", in, d, err, want)
		}
	}
	var d time.Duration
	root := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }, SilenceErrors: true, SilenceUsage: true}
	root.Flags().DurationVar(&d, "window", 0, "how far back")
	HumanPeriods(root)
	root.SetArgs([]string{"--window", "7 fortnights"})
	if err := root.Execute(); err == nil {
		t.Error("--window '7 fortnights' accepted")
	}
}
