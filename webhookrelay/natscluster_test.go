package webhookrelay

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// natsCluster is a real three-node JetStream cluster in this process, on
// loopback ports, each node with its own temporary store directory.
type natsCluster struct {
	servers []*server.Server
}

// freePorts reserves n loopback ports and releases them for the servers.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var lns []net.Listener
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}

func startNATSCluster(t testing.TB, n int) *natsCluster {
	t.Helper()
	routePorts := freePorts(t, n)
	var routes []string
	for _, p := range routePorts {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	c := &natsCluster{}
	for i := range n {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			Cluster:    server.ClusterOpts{Name: "paydash-test", Host: "127.0.0.1", Port: routePorts[i]},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
			NoLog:      true,
			NoSigs:     true,
		}
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		c.servers = append(c.servers, s)
	}
	t.Cleanup(c.shutdown)
	for _, s := range c.servers {
		if !s.ReadyForConnections(20 * time.Second) {
			t.Fatalf("NATS server %s not ready", s.Name())
		}
	}
	waitFor(t, "a JetStream meta leader", func() bool {
		for _, s := range c.servers {
			if s.JetStreamIsLeader() {
				return true
			}
		}
		return false
	})
	return c
}

func (c *natsCluster) urls() []string {
	var u []string
	for _, s := range c.servers {
		if s.Running() {
			u = append(u, s.ClientURL())
		}
	}
	return u
}

// streamLeader returns the server leading stream, or nil.
func (c *natsCluster) streamLeader(stream string) *server.Server {
	for _, s := range c.servers {
		if s.Running() && s.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, stream) {
			return s
		}
	}
	return nil
}

func (c *natsCluster) shutdown() {
	for _, s := range c.servers {
		s.Shutdown()
	}
	for _, s := range c.servers {
		s.WaitForShutdown()
	}
}
