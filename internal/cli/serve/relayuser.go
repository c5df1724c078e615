package serve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// UserCommand is `paydash relay user`: add, remove and rotate the hub's
// users. The hub reads the file again on SIGHUP.
func UserCommand(s *cmdutil.Streams) *cobra.Command {
	var file string
	c := &cobra.Command{
		Use:   "user",
		Short: "Add, remove or rotate the team hub's users (relay --users FILE)",
		Long: `Manage the users file of the team hub (paydash relay --users FILE).

Each user has a name, the SHA-256 of their token (never the token) and
roles: view (read events and approvals), request (submit payouts),
approve (approve or reject other people's requests). add and rotate print
the new token once: hand it to the person, who puts it in their profile
as relay_token. The running hub reads the file again on SIGHUP
(kill -HUP <pid>).`,
		Example: `  paydash relay user add ada --role request --users team.toml
  paydash relay user add bob --role request,approve --users team.toml
  paydash relay user rotate ada --users team.toml
  paydash relay user remove ada --users team.toml`,
		Args: cmdutil.NoArgs,
	}
	c.PersistentFlags().StringVar(&file, "users", "", "users file (required)")
	need := func() error {
		if file == "" {
			return cmdutil.Exit(cmdutil.ExitUsage, errors.New("--users FILE is required: the file the hub is given with paydash relay --users"))
		}
		return nil
	}
	var roles []string
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Add a user with a new token, printed once",
		Args:  cmdutil.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := need(); err != nil {
				return err
			}
			rs, err := users.ParseRoles(roles)
			if err != nil {
				return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--role: %w", err))
			}
			tok, err := users.Add(file, args[0], rs)
			if err != nil {
				return cmdutil.Exit(cmdutil.ExitUsage, err)
			}
			printToken(s, args[0], tok, file, "added with roles "+strings.Join(rs, ", "))
			return nil
		},
	}
	add.Flags().StringSliceVar(&roles, "role", nil, "roles: view, request, approve (comma-separated or repeated)")
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a user; their token stops working when the hub reads the file again",
		Args:  cmdutil.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := need(); err != nil {
				return err
			}
			if err := users.Remove(file, args[0]); err != nil {
				return cmdutil.Exit(cmdutil.ExitUsage, err)
			}
			fmt.Fprintf(s.Out, "Removed %s from %s. Send the hub SIGHUP (kill -HUP <pid>) for it to take effect.\n", args[0], file)
			return nil
		},
	}
	rotate := &cobra.Command{
		Use:   "rotate NAME",
		Short: "Give a user a new token, printed once; the old one stops working when the hub reads the file again",
		Args:  cmdutil.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := need(); err != nil {
				return err
			}
			tok, err := users.Rotate(file, args[0])
			if err != nil {
				return cmdutil.Exit(cmdutil.ExitUsage, err)
			}
			printToken(s, args[0], tok, file, "has a new token")
			return nil
		},
	}
	c.AddCommand(add, remove, rotate)
	return c
}

// printToken prints a new token: the token alone on stdout (so a script
// can capture it), what to do with it on stderr.
func printToken(s *cmdutil.Streams, name, tok, file, what string) {
	fmt.Fprintf(s.Err, "User %s %s in %s. Their token, shown only now (the file keeps its SHA-256):\n", name, what, file)
	fmt.Fprintln(s.Out, tok)
	fmt.Fprintf(s.Err, "Give it to %s for their profile's relay_token, then send the hub SIGHUP (kill -HUP <pid>).\n", name)
}
