// Package hubapi is the team hub's wire: every type and value that
// crosses HTTP or the approvals websocket between the hub
// (webhookrelay/hub) and its clients (hubclient, the dashboard, the
// approvals commands), and the few rules clients apply to what the hub
// answers (AwaitingYou, Totals). The hub converts its stored records to
// these types at its edge, so what it stores may change without
// changing what it answers.
//
// It imports only api (payouts, money) and the standard library: a
// client linking it links nothing of the hub's server, store or users
// file.
package hubapi

// Prefix is where the hub's API is mounted on the relay's listener.
const Prefix = "/hub/"

// Paths of the API (under Prefix).
const (
	PathMe        = "/hub/v1/me"
	PathPayouts   = "/hub/v1/payouts"
	PathApprovals = "/hub/v1/approvals"
	PathLog       = "/hub/v1/log"
	PathOutflows  = "/hub/v1/outflows"
	PathAudit     = "/hub/v1/audit"
	PathPayments  = "/hub/v1/payments"
	PathMandates  = "/hub/v1/mandates"
	PathBatches   = "/hub/v1/batches"
	// PathApprovalsWS is the approvals feed: a websocket on which the hub
	// sends a Change (JSON) for each change of a request's status.
	PathApprovalsWS = PathApprovals + "/ws"
)

// CloseReasonSlow is the close reason of a feed subscriber dropped for a
// full queue: the changes it missed are in the list.
const CloseReasonSlow = "slow consumer: changes were dropped; list the approvals again"

// Roles a user may hold.
const (
	// RoleView reads events and approval requests.
	RoleView = "view"
	// RoleRequest submits payouts (and reads approval requests).
	RoleRequest = "request"
	// RoleApprove approves or rejects other people's requests (and reads
	// them).
	RoleApprove = "approve"
)

// HasRole reports whether roles grant role. Request and approve include
// view: whoever submits or decides must be able to read what they act on.
func HasRole(roles []string, role string) bool {
	for _, r := range roles {
		if r == role || role == RoleView && (r == RoleRequest || r == RoleApprove) {
			return true
		}
	}
	return false
}

// Me is the body of GET /hub/v1/me.
type Me struct {
	Name  string   `json:"name"`
	Roles []string `json:"roles"`
	// Policy says the hub's thresholds in words.
	Policy string `json:"policy"`
}

// Has reports whether the caller holds role (HasRole).
func (m Me) Has(role string) bool { return HasRole(m.Roles, role) }
