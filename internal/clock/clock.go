// Package clock is the old home of api/clock, kept so packages not yet
// switched keep compiling: every name here is an alias of (or forwards
// to) github.com/paydash/paydash/api/clock, so both are one type.
//
// Deprecated: import github.com/paydash/paydash/api/clock. Once nothing
// imports this package it is deleted.
package clock

import (
	"time"

	"github.com/paydash/paydash/api/clock"
)

// Clock is clock.Clock of api/clock.
type Clock = clock.Clock

// Timer is clock.Timer of api/clock.
type Timer = clock.Timer

// Fake is clock.Fake of api/clock.
type Fake = clock.Fake

// Real returns the system clock.
func Real() Clock { return clock.Real() }

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return clock.NewFake(start) }
