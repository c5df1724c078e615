// Package sandboxapi is what a client needs to drive the sandbox's control
// endpoint POST /sandbox/events with a trigger: the request (Trigger), the
// answer (Injected), the refusal (TriggerError), the event types a
// trigger makes (TriggerEvents) and SendTrigger, which does the HTTP.
//
// It exists so that the dashboard's Events view and `paydash sandbox
// trigger` can ask a running sandbox for an event without linking the
// sandbox server (package sandbox) into the client: the server imports
// these types to decode the same request and write the same answer, so
// the two cannot drift apart.
//
// It may import api and the standard library only; never package sandbox.
package sandboxapi
