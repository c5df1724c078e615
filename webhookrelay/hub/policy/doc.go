// Package policy is the team hub's rule for which payouts need a second
// person: thresholds per currency, the 24-hour sum per requester and
// payee (no splitting a payout round the threshold), how many distinct
// approvers, and how long a request waits before it lapses. Pure
// functions: the hub's store supplies what was sent, the policy decides.
//
// It may import api only. The hub and the server commands import it.
package policy
