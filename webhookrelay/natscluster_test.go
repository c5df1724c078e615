package webhookrelay

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

// natsCluster is a real three-node JetStream cluster in this process, on
// loopback ports, each node with its own temporary store directory. Each
// node keeps its ports and directory, so a node shut down can be started
// again as the same server.
type natsCluster struct {
	servers []*server.Server
	opts    []*server.Options
}

// reservePorts finds n free loopback ports and releases them for the
// servers to bind.
func reservePorts(n int) ([]int, error) {
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

func startNATSCluster(t testing.TB, n int) *natsCluster {
	t.Helper()
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
	}
	c, err := launchNATSClusterRetrying(dirs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.shutdown)
	return c
}

// launchNATSClusterRetrying launches on fresh ports, up to three times: a
// reserved route port can be taken by another process before a server
// binds it.
func launchNATSClusterRetrying(dirs []string) (*natsCluster, error) {
	var err error
	for attempt := range 3 {
		var ports []int
		if ports, err = reservePorts(2 * len(dirs)); err != nil {
			continue
		}
		fresh := make([]string, len(dirs))
		for i, d := range dirs {
			fresh[i] = filepath.Join(d, fmt.Sprintf("try%d", attempt))
		}
		var c *natsCluster
		if c, err = launchNATSCluster(ports, fresh); err == nil {
			return c, nil
		}
		if c != nil {
			c.shutdown()
		}
	}
	return nil, err
}

// launchNATSCluster starts one server per store directory, clients on
// ports[:n] and routes to each other on ports[n:2n], and waits for a
// JetStream meta leader.
func launchNATSCluster(ports []int, dirs []string) (*natsCluster, error) {
	n := len(dirs)
	var routes []string
	for _, p := range ports[n : 2*n] {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	c := &natsCluster{}
	for i, dir := range dirs {
		c.opts = append(c.opts, &server.Options{
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
		c.servers = append(c.servers, nil)
		if err := c.startNode(i); err != nil {
			return c, err
		}
	}
	for _, s := range c.servers {
		if !s.ReadyForConnections(60 * time.Second) {
			return c, fmt.Errorf("NATS server %s not ready", s.Name())
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, s := range c.servers {
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

// startNode starts node i (again) on its ports and store directory.
func (c *natsCluster) startNode(i int) error {
	o := *c.opts[i]
	s, err := server.NewServer(&o)
	if err != nil {
		return err
	}
	go s.Start()
	c.servers[i] = s
	return nil
}

func (c *natsCluster) urls() []string {
	var u []string
	for _, s := range c.servers {
		if s != nil && s.Running() {
			u = append(u, s.ClientURL())
		}
	}
	return u
}

// streamLeader returns the server leading stream, or nil.
func (c *natsCluster) streamLeader(stream string) *server.Server {
	for _, s := range c.servers {
		if s != nil && s.Running() && s.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, stream) {
			return s
		}
	}
	return nil
}

func (c *natsCluster) shutdown() {
	for _, s := range c.servers {
		if s != nil {
			s.Shutdown()
		}
	}
	for _, s := range c.servers {
		if s != nil {
			s.WaitForShutdown()
		}
	}
}
