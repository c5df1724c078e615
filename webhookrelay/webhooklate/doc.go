// Package webhooklate knows, for every payout sent, which final webhook
// it expects (settled, executed, failed, rejected; returned is a failure
// with reason returned) and marks the payouts whose final webhook has not
// come within the profile's webhook_late: the one thing a relay alone
// cannot tell, since it only sees what arrives.
//
// It is plain bookkeeping, fed by its callers: payouts sent (the audit
// record) and relay events (authorised ones add payouts, final ones
// settle them). The tracker, the Events view and `paydash events
// missing` share it so they agree.
//
// It is a client package: it may import api and relayclient, never the
// relay server, and ui, the pipeline and the commands import it.
package webhooklate
