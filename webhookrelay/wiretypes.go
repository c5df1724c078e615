package webhookrelay

import "github.com/paydash/paydash/webhookrelay/relayclient"

// The relay's wire types are owned by relayclient, the package the
// dashboard and commands import without pulling in the server, bbolt or
// the websocket fan-out. The server uses the same types under these names.
type (
	Event         = relayclient.Event
	ForwardResult = relayclient.ForwardResult
)

// Families of webhook the relay understands (see relayclient).
const (
	FamilyPayout   = relayclient.FamilyPayout
	FamilyPayments = relayclient.FamilyPayments
	FamilyUnknown  = relayclient.FamilyUnknown
)
