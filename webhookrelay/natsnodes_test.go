package webhookrelay

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsNodes is a three-node JetStream cluster whose nodes a test kills
// and starts again: in this process (the nats-server module at the
// version in go.mod) or as nats-server processes (the binary on PATH, the
// distribution's package in CI). Tests run against both, so two server
// versions are proven.
type natsNodes interface {
	// allURLs is every node's client URL, up or down, as an operator
	// lists them in --nats.
	allURLs() []string
	nodeName(i int) string
	// kill stops node i at once (SIGKILL for a process).
	kill(t testing.TB, i int)
	// restart starts node i again on its ports and store directory.
	restart(t testing.TB, i int)
}

// requireNATSServerEnv, set (as .ci/run does), turns a missing
// nats-server binary from a skip into a failure.
const requireNATSServerEnv = "PAYDASH_REQUIRE_NATS_SERVER"

// eachNATSServer runs fn against the in-process cluster and against three
// nats-server processes.
func eachNATSServer(t *testing.T, fn func(t *testing.T, nodes natsNodes)) {
	t.Run("module-"+server.VERSION, func(t *testing.T) {
		fn(t, inProcessNodes{startNATSCluster(t, 3)})
	})
	t.Run("binary", func(t *testing.T) {
		fn(t, startNATSProcesses(t, 3))
	})
}

// inProcessNodes adapts natsCluster.
type inProcessNodes struct{ *natsCluster }

func (c inProcessNodes) allURLs() []string {
	var u []string
	for _, o := range c.opts {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", o.Port))
	}
	return u
}

func (c inProcessNodes) nodeName(i int) string { return c.opts[i].ServerName }

func (c inProcessNodes) kill(_ testing.TB, i int) {
	c.servers[i].Shutdown()
	c.servers[i].WaitForShutdown()
}

func (c inProcessNodes) restart(t testing.TB, i int) {
	t.Helper()
	if err := c.startNode(i); err != nil {
		t.Fatal(err)
	}
	if !c.servers[i].ReadyForConnections(30 * time.Second) {
		t.Fatalf("NATS node %s not ready after restart", c.nodeName(i))
	}
}

// natsProcesses is a cluster of nats-server processes on loopback.
type natsProcesses struct {
	bin     string
	version string
	dir     string
	ports   []int // client ports, then route ports
	cmds    []*exec.Cmd
}

// natsServerBinary finds nats-server on PATH, or skips (fails when
// requireNATSServerEnv is set).
func natsServerBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		msg := "nats-server binary not on PATH, so the test against real server processes did not run (Debian: apt-get install nats-server)"
		if os.Getenv(requireNATSServerEnv) != "" {
			t.Fatalf("%s; %s is set, so this is a failure", msg, requireNATSServerEnv)
		}
		t.Skip(msg)
	}
	return bin
}

func startNATSProcesses(t testing.TB, n int) *natsProcesses {
	t.Helper()
	bin := natsServerBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	p := &natsProcesses{bin: bin, version: strings.TrimSpace(string(out)), dir: t.TempDir(), cmds: make([]*exec.Cmd, n)}
	t.Logf("%s (%s)", p.version, bin)
	if p.ports, err = reservePorts(2 * n); err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, port := range p.ports[n:] {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", port))
	}
	for i := range n {
		conf := fmt.Sprintf("server_name: %s\nlisten: 127.0.0.1:%d\njetstream { store_dir: %q }\n"+
			"cluster { name: paydash-test, listen: 127.0.0.1:%d, routes: [%s] }\n",
			p.nodeName(i), p.ports[i], filepath.Join(p.dir, p.nodeName(i)), p.ports[n+i], strings.Join(routes, ", "))
		if err := os.WriteFile(p.confPath(i), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for i := range p.cmds {
			p.stop(i)
		}
		if t.Failed() {
			for i := range p.cmds {
				logs, _ := os.ReadFile(p.logPath(i))
				t.Logf("%s log (tail):\n%s", p.nodeName(i), tail(string(logs), 3000))
			}
		}
	})
	for i := range n {
		p.restart(t, i)
	}
	waitForJetStream(t, p.allURLs())
	return p
}

func (p *natsProcesses) confPath(i int) string { return filepath.Join(p.dir, p.nodeName(i)+".conf") }
func (p *natsProcesses) logPath(i int) string  { return filepath.Join(p.dir, p.nodeName(i)+".log") }
func (p *natsProcesses) nodeName(i int) string { return fmt.Sprintf("n%d", i+1) }

func (p *natsProcesses) allURLs() []string {
	var u []string
	for _, port := range p.ports[:len(p.cmds)] {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", port))
	}
	return u
}

func (p *natsProcesses) restart(t testing.TB, i int) {
	t.Helper()
	logf, err := os.OpenFile(p.logPath(i), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(p.bin, "-c", p.confPath(i))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.cmds[i] = cmd
	addr := fmt.Sprintf("127.0.0.1:%d", p.ports[i])
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server %s did not listen on %s: %v", p.nodeName(i), addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *natsProcesses) kill(_ testing.TB, i int) { p.stop(i) }

func (p *natsProcesses) stop(i int) {
	if cmd := p.cmds[i]; cmd != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		p.cmds[i] = nil
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// waitForJetStream waits until the cluster answers JetStream requests
// (a meta leader is elected).
func waitForJetStream(t testing.TB, urls []string) {
	t.Helper()
	nc, js := natsTestClient(t, urls)
	defer nc.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("JetStream not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func natsTestClient(t testing.TB, urls []string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// streamLeaderNode returns the index of the node leading stream.
func streamLeaderNode(t testing.TB, nodes natsNodes, stream string) int {
	t.Helper()
	nc, js := natsTestClient(t, nodes.allURLs())
	defer nc.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s, err := js.Stream(ctx, stream)
		var info *jetstream.StreamInfo
		if err == nil {
			info, err = s.Info(ctx)
		}
		cancel()
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
			for i := range len(nodes.allURLs()) {
				if nodes.nodeName(i) == info.Cluster.Leader {
					return i
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader for stream %s: %v", stream, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
