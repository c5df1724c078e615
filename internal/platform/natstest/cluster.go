package natstest

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// SkipShort skips t under `go test -short`: a real cluster takes seconds
// to elect its leaders, and the clustered tests kill and restart nodes,
// so they are most of the time of `go test ./...`. The fast loop leaves
// them to the full run (and CI), which runs every one.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a three-node JetStream cluster: left to the full run (go test without -short)")
	}
}

// Cluster is a JetStream cluster in this process. Each node keeps its
// ports and directory, so a node shut down can be started again as the
// same server.
type Cluster struct {
	Servers []*server.Server
	Opts    []*server.Options
}

// ReservePorts finds n free loopback ports and releases them for the
// servers to bind.
func ReservePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// StartCluster starts an n-node cluster in this process, shut down when
// the test ends. Under -short it skips the test (see SkipShort).
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	SkipShort(t)
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
	}
	c, err := Launch(dirs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// Launch starts a cluster with one node per store directory, trying
// fresh ports up to three times: a reserved route port can be taken by
// another process before a server binds it. The caller shuts it down.
func Launch(dirs []string) (*Cluster, error) {
	var err error
	for attempt := range 3 {
		var ports []int
		if ports, err = ReservePorts(2 * len(dirs)); err != nil {
			continue
		}
		fresh := make([]string, len(dirs))
		for i, d := range dirs {
			fresh[i] = filepath.Join(d, fmt.Sprintf("try%d", attempt))
		}
		var c *Cluster
		if c, err = launch(ports, fresh); err == nil {
			return c, nil
		}
		if c != nil {
			c.Shutdown()
		}
	}
	return nil, err
}

// launch starts one server per store directory, clients on ports[:n] and
// routes to each other on ports[n:2n], and waits for a JetStream meta
// leader.
func launch(ports []int, dirs []string) (*Cluster, error) {
	n := len(dirs)
	var routes []string
	for _, p := range ports[n : 2*n] {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	c := &Cluster{}
	for i, dir := range dirs {
		c.Opts = append(c.Opts, &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       ports[i],
			JetStream:  true,
			StoreDir:   dir,
			Cluster:    server.ClusterOpts{Name: "paydash-test", Host: "127.0.0.1", Port: ports[n+i]},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
			NoLog:      true,
			NoSigs:     true,
		})
		c.Servers = append(c.Servers, nil)
		if err := c.StartNode(i); err != nil {
			return c, err
		}
	}
	for _, s := range c.Servers {
		if !s.ReadyForConnections(60 * time.Second) {
			return c, fmt.Errorf("NATS server %s not ready", s.Name())
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, s := range c.Servers {
			if s.JetStreamIsLeader() {
				return c, nil
			}
		}
		if time.Now().After(deadline) {
			return c, errors.New("no JetStream meta leader elected")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// StartNode starts node i (again) on its ports and store directory.
func (c *Cluster) StartNode(i int) error {
	o := *c.Opts[i]
	s, err := server.NewServer(&o)
	if err != nil {
		return err
	}
	go s.Start()
	c.Servers[i] = s
	return nil
}

// ClientURLs are the client URLs of the nodes running now.
func (c *Cluster) ClientURLs() []string {
	var u []string
	for _, s := range c.Servers {
		if s != nil && s.Running() {
			u = append(u, s.ClientURL())
		}
	}
	return u
}

// StreamLeader returns the server leading stream, or nil.
func (c *Cluster) StreamLeader(stream string) *server.Server {
	for _, s := range c.Servers {
		if s != nil && s.Running() && s.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, stream) {
			return s
		}
	}
	return nil
}

// Shutdown stops every node and waits for them.
func (c *Cluster) Shutdown() {
	for _, s := range c.Servers {
		if s != nil {
			s.Shutdown()
		}
	}
	for _, s := range c.Servers {
		if s != nil {
			s.WaitForShutdown()
		}
	}
}

// URLs is every node's client URL, up or down.
func (c *Cluster) URLs() []string {
	var u []string
	for _, o := range c.Opts {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", o.Port))
	}
	return u
}

// NodeName is node i's server name.
func (c *Cluster) NodeName(i int) string { return c.Opts[i].ServerName }

// Kill shuts node i down.
func (c *Cluster) Kill(_ testing.TB, i int) {
	c.Servers[i].Shutdown()
	c.Servers[i].WaitForShutdown()
}

// Restart starts node i again and waits for it to take connections.
func (c *Cluster) Restart(t testing.TB, i int) {
	t.Helper()
	if err := c.StartNode(i); err != nil {
		t.Fatal(err)
	}
	if !c.Servers[i].ReadyForConnections(30 * time.Second) {
		t.Fatalf("NATS node %s not ready after restart", c.NodeName(i))
	}
}
