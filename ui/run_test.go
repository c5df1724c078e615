package ui

import (
	"context"
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/paydash/paydash/internal/platform/clock"
)

// Run returns cleanly (nil) when its context ends, the way `paydash demo`
// shuts the dashboard down.
func TestRunStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Backend: newFake(100), Clock: clock.NewFake(fixedNow)}, tea.WithInput(nil), tea.WithOutput(io.Discard))
	}()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v, want nil", err)
	}
}

func TestRunNeedsBackend(t *testing.T) {
	if err := Run(context.Background(), Options{}); err == nil {
		t.Fatal("Run without a backend succeeded")
	}
}
