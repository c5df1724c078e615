// Package clock is the one way paydash injects time: every time-driven
// part (the api client's token expiry and retry backoff, validation's
// "today", the sandbox's payout state machine, the relay, the dashboard)
// takes a Clock, real in the product and a hand-advanced Fake in tests, so
// tests take milliseconds instead of minutes: api.Config,
// api.ValidateOptions and sandbox.Options take one. It imports nothing of
// paydash.
package clock
