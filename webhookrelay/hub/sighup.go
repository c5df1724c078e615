package hub

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// ReloadOnSIGHUP reads the users file again on each SIGHUP until ctx is
// done: an administrator adds, removes or rotates a user and signals the
// hub, which keeps running. A file that fails to read, is writable by
// group or others, or leaves fewer approvers than the policy needs, is
// logged and the users in force stay.
// ready, when not nil, is closed once the signal is being watched.
func ReloadOnSIGHUP(ctx context.Context, l *users.Live, log *slog.Logger, ready chan<- struct{}) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	defer signal.Stop(ch)
	if ready != nil {
		close(ready)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			if err := l.Reload(); err != nil {
				log.Error("users file not reloaded; the users read before stay in force", "file", l.Path(), "err", err)
				continue
			}
			log.Info("users file reloaded", "file", l.Path(), "users", l.Current().Len())
			if w := l.Warning(); w != "" {
				log.Warn(w)
			}
		}
	}
}
