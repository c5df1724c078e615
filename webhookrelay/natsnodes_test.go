package webhookrelay

import (
	"testing"

	"github.com/paydash/paydash/internal/platform/natstest"
)

// The JetStream clusters of these tests are natstest's, shared with the
// team hub's tests; these names keep the tests short.

type natsNodes = natstest.Nodes

func startNATSCluster(t testing.TB, n int) *natstest.Cluster { return natstest.StartCluster(t, n) }

func eachNATSServer(t *testing.T, fn func(t *testing.T, nodes natsNodes)) { natstest.Each(t, fn) }

func streamLeaderNode(t testing.TB, nodes natsNodes, stream string) int {
	return natstest.StreamLeaderNode(t, nodes, stream)
}
