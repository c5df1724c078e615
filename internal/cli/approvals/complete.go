package approvals

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// completeIDs completes a request id with the hub's requests, each
// described by what it pays (pending only when pendingOnly: the ones
// approve and reject can act on).
func completeIDs(s *cmdutil.Streams, g *cmdutil.Global, conn *Conn, pendingOnly bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		_, hc, err := conn.setup(cmdutil.Quiet(s), g)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
		defer cancel()
		rs, err := hc.List(ctx, !pendingOnly)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]cobra.Completion, 0, len(rs))
		for _, r := range rs {
			if pendingOnly && r.Status != hubapi.StatusPending {
				continue
			}
			out = append(out, cobra.CompletionWithDesc(r.ID, termtext.Safe(r.Status+": "+whatOf(r))))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
