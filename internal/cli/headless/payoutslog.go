package headless

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
)

// PayoutsLogOptions are the flags of `paydash payouts log`.
type PayoutsLogOptions struct {
	JSON    bool
	Since   string
	Offline bool
}

// Bind registers the flags.
func (o *PayoutsLogOptions) Bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.JSON, "json", false, "print the attempts as a JSON array")
	fs.BoolVar(&o.Offline, "offline", false, "print the record as it is, without asking the relay or the service what became of open payouts")
	fs.StringVar(&o.Since, "since", "", "only since then, as transactions --since: 7d, 24h, \"7 days\", today or a time (default all)")
}

// PayoutsLog prints the profile's audit record: one line per attempt to
// send a payout (form, payout create, batch) with its last known outcome.
// AuditSource is the record `payouts log` prints: the profile's own
// (*payout.Log), or, in team mode, the hub's.
type AuditSource interface {
	Entries() ([]payout.Entry, error)
	Profile() string
	Path() string
}

func PayoutsLog(s *cmdutil.Streams, log AuditSource, o *PayoutsLogOptions) error {
	var from time.Time
	if o.Since != "" {
		var err error
		if from, err = ParseSince(o.Since, time.Now()); err != nil {
			return cmdutil.Exit(cmdutil.ExitUsage, err)
		}
	}
	entries, err := log.Entries()
	if err != nil {
		return err
	}
	all := payout.Attempts(entries)
	var rows []payout.Attempt
	for _, a := range all {
		if !from.IsZero() && a.At.Before(from) {
			continue
		}
		rows = append(rows, a)
	}
	if o.JSON {
		if rows == nil {
			rows = []payout.Attempt{}
		}
		return cmdutil.WriteJSON(s.Out, rows)
	}
	if len(rows) == 0 {
		if len(all) > 0 {
			fmt.Fprintf(s.Err, "no payouts since %s (%d recorded for profile %q, all earlier; %s)\n",
				from.UTC().Format("2006-01-02 15:04:05 MST"), len(all), log.Profile(), log.Path())
			return nil
		}
		fmt.Fprintf(s.Err, "no payouts recorded for profile %q (%s)\n", log.Profile(), log.Path())
		return nil
	}
	table := make([][]string, 0, len(rows))
	for _, a := range rows {
		src := a.Source
		if a.BatchFile != "" {
			src = fmt.Sprintf("batch line %d", a.Line)
		}
		outcome := outcomeWord(a)
		if a.AllowedDuplicate {
			outcome += " (allowed duplicate)"
		}
		table = append(table, []string{a.At.UTC().Format("2006-01-02 15:04:05"), a.Profile, src, a.TransactionID, a.Name, a.IBAN,
			api.FormatAmount(a.AmountInMinor, a.Currency), a.Reference, outcome})
	}
	if err := cmdutil.WriteTable(s.Out, []string{"TIME (UTC)", "PROFILE", "SOURCE", "TRANSACTION ID", "PAYEE", "IBAN", "AMOUNT", "REFERENCE", "OUTCOME"}, table, 6); err != nil {
		return err
	}
	fmt.Fprintf(s.Err, "%d attempt(s); record: %s\n", len(rows), log.Path())
	return nil
}
