package natstest

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

// Nodes is a three-node JetStream cluster whose nodes a test kills and
// starts again: a *Cluster or *Processes.
type Nodes interface {
	// URLs is every node's client URL, up or down, as an operator lists
	// them in --nats.
	URLs() []string
	NodeName(i int) string
	// Kill stops node i at once (SIGKILL for a process).
	Kill(t testing.TB, i int)
	// Restart starts node i again on its ports and store directory.
	Restart(t testing.TB, i int)
}

// RequireServerEnv, set (as .ci/run does), turns a missing nats-server
// binary from a skip into a failure.
const RequireServerEnv = "PAYDASH_REQUIRE_NATS_SERVER"

// Each runs fn against an in-process cluster and against three
// nats-server processes. Under -short it skips the test (see SkipShort).
func Each(t *testing.T, fn func(t *testing.T, nodes Nodes)) {
	SkipShort(t)
	t.Run("module-"+server.VERSION, func(t *testing.T) {
		fn(t, StartCluster(t, 3))
	})
	t.Run("binary", func(t *testing.T) {
		fn(t, StartProcesses(t, 3))
	})
}

// Processes is a cluster of nats-server processes on loopback.
type Processes struct {
	bin     string
	version string
	dir     string
	ports   []int // client ports, then route ports
	cmds    []*exec.Cmd
}

// ServerBinary finds nats-server on PATH, or skips (fails when
// RequireServerEnv is set).
func ServerBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		msg := "nats-server binary not on PATH, so the test against real server processes did not run (Debian: apt-get install nats-server)"
		if os.Getenv(RequireServerEnv) != "" {
			t.Fatalf("%s; %s is set, so this is a failure", msg, RequireServerEnv)
		}
		t.Skip(msg)
	}
	return bin
}

// StartProcesses starts n nats-server processes in one cluster, killed
// when the test ends (their logs shown when it failed). Under -short it
// skips the test (see SkipShort).
func StartProcesses(t testing.TB, n int) *Processes {
	t.Helper()
	SkipShort(t)
	bin := ServerBinary(t)
	out, err := exec.Command(bin, "--version").Output() //nolint:gosec // the nats-server found on PATH, for a test
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	p := &Processes{bin: bin, version: strings.TrimSpace(string(out)), dir: t.TempDir(), cmds: make([]*exec.Cmd, n)}
	t.Logf("%s (%s)", p.version, bin)
	if p.ports, err = ReservePorts(2 * n); err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, port := range p.ports[n:] {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", port))
	}
	for i := range n {
		conf := fmt.Sprintf("server_name: %s\nlisten: 127.0.0.1:%d\njetstream { store_dir: %q }\n"+
			"cluster { name: paydash-test, listen: 127.0.0.1:%d, routes: [%s] }\n",
			p.NodeName(i), p.ports[i], filepath.Join(p.dir, p.NodeName(i)), p.ports[n+i], strings.Join(routes, ", "))
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
				t.Logf("%s log (tail):\n%s", p.NodeName(i), tail(string(logs), 3000))
			}
		}
	})
	for i := range n {
		p.Restart(t, i)
	}
	WaitForJetStream(t, p.URLs())
	return p
}

func (p *Processes) confPath(i int) string { return filepath.Join(p.dir, p.NodeName(i)+".conf") }
func (p *Processes) logPath(i int) string  { return filepath.Join(p.dir, p.NodeName(i)+".log") }

// NodeName is node i's server name.
func (p *Processes) NodeName(i int) string { return fmt.Sprintf("n%d", i+1) }

// URLs is every node's client URL, up or down.
func (p *Processes) URLs() []string {
	var u []string
	for _, port := range p.ports[:len(p.cmds)] {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", port))
	}
	return u
}

// Restart starts node i's process (again) and waits for it to listen.
func (p *Processes) Restart(t testing.TB, i int) {
	t.Helper()
	logf, err := os.OpenFile(p.logPath(i), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(p.bin, "-c", p.confPath(i)) //nolint:gosec // the nats-server found on PATH, for a test
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
			t.Fatalf("nats-server %s did not listen on %s: %v", p.NodeName(i), addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill sends node i's process SIGKILL.
func (p *Processes) Kill(_ testing.TB, i int) { p.stop(i) }

func (p *Processes) stop(i int) {
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

// WaitForJetStream waits until the cluster answers JetStream requests
// (a meta leader is elected).
func WaitForJetStream(t testing.TB, urls []string) {
	t.Helper()
	nc, js := Client(t, urls)
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

// Client connects to the cluster, reconnecting among urls.
func Client(t testing.TB, urls []string) (*nats.Conn, jetstream.JetStream) {
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

// StreamLeaderNode returns the index of the node leading stream.
func StreamLeaderNode(t testing.TB, nodes Nodes, stream string) int {
	t.Helper()
	nc, js := Client(t, nodes.URLs())
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
			for i := range len(nodes.URLs()) {
				if nodes.NodeName(i) == info.Cluster.Leader {
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
