package ui

import (
	"time"

	"github.com/paydash/paydash/api/clock"
)

// nowClock adapts the model's now function to the clock.Clock that
// api.ValidateOptions takes. It goes once the model holds a clock.Clock
// itself (its Now func and after are the last other ways time is injected).
type nowClock func() time.Time

func (n nowClock) Now() time.Time                                { return n() }
func (nowClock) After(d time.Duration) <-chan time.Time          { return clock.Real().After(d) }
func (nowClock) AfterFunc(d time.Duration, f func()) clock.Timer { return clock.Real().AfterFunc(d, f) }
