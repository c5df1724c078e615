package webhookrelay

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// The crash test re-executes this test binary as a relay child process
// (selected by this variable) so that it can be killed with SIGKILL.
const childEnv = "WEBHOOKRELAY_TEST_RELAY_STORE"

func TestMain(m *testing.M) {
	if store := os.Getenv(childEnv); store != "" {
		os.Exit(runRelayChild(store))
	}
	if dir := os.Getenv(natsChildEnv); dir != "" {
		os.Exit(runNATSChild(dir))
	}
	if spec := os.Getenv(loadgenEnv); spec != "" {
		os.Exit(runLoadgenChild(spec))
	}
	if mode := os.Getenv(pinnedRelayEnv); mode != "" {
		os.Exit(runPinnedRelayChild(mode))
	}
	os.Exit(m.Run())
}

// runRelayChild serves a relay on a loopback port, prints "ADDR host:port"
// and serves until killed.
func runRelayChild(store string) int {
	r, err := Open(Config{StorePath: store})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("ADDR %s\n", ln.Addr())
	if err := r.Serve(context.Background(), ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func startRelayChild(t *testing.T, store string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+store)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ADDR ") {
		t.Fatalf("relay child did not start: %q %v", line, err)
	}
	return cmd, "http://" + strings.TrimSpace(strings.TrimPrefix(line, "ADDR "))
}

func TestCrashMidStreamLosesNoAcknowledgedEventAndStoresEachOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts relay processes")
	}
	const (
		total   = 2000
		senders = 8
		killAt  = 600 // acknowledgements seen before SIGKILL
	)
	store := filepath.Join(t.TempDir(), "relay.db")
	child, base := startRelayChild(t, store)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders}}

	var (
		acked   sync.Map // event id -> true, for every 2xx
		nAcked  atomic.Int64
		baseURL atomic.Value
	)
	baseURL.Store(base)
	send := func(id string) bool {
		body := paymentsWebhook(id, api.EventPayoutExecuted, "po-"+id, nil)
		resp, err := client.Post(baseURL.Load().(string)+DefaultPath, "application/json", strings.NewReader(string(body)))
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return false
		}
		acked.Store(id, true)
		nAcked.Add(1)
		return true
	}
	ids := make([]string, total)
	for i := range ids {
		ids[i] = fmt.Sprintf("crash-%04d", i)
	}
	// Phase 1: senders deliver concurrently while the relay is killed.
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []string
	)
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for i := s; i < total; i += senders {
				if !send(ids[i]) {
					mu.Lock()
					failed = append(failed, ids[i])
					mu.Unlock()
				}
			}
		}(s)
	}
	waitFor(t, "acknowledgements before the kill", func() bool { return nAcked.Load() >= killAt })
	if err := child.Process.Kill(); err != nil { // SIGKILL: no shutdown code runs
		t.Fatal(err)
	}
	_ = child.Wait()
	wg.Wait()
	ackedBeforeKill := nAcked.Load()
	if len(failed) == 0 {
		t.Fatal("the kill interrupted no delivery; the test proved nothing")
	}

	// Every acknowledged event survived the kill.
	_, base2 := startRelayChild(t, store)
	baseURL.Store(base2)
	stored := history(t, base2, "")
	inStore := map[string]bool{}
	for _, e := range stored {
		inStore[e.EventID] = true
	}
	acked.Range(func(k, _ any) bool {
		if !inStore[k.(string)] {
			t.Errorf("acknowledged event %s is not in the store after the crash", k)
		}
		return true
	})

	// Phase 2: senders retry what was not acknowledged, as real senders do;
	// some of it was stored before the kill and must not be stored twice.
	for _, id := range failed {
		if !send(id) {
			t.Fatalf("retry of %s failed after the restart", id)
		}
	}
	checkExactlyOnce(t, history(t, base2, ""), ids)

	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: "ws" + strings.TrimPrefix(base2, "http") + "/ws"})
	runSubscriber(t, sub)
	checkExactlyOnce(t, receive(t, sub, total), ids)
	t.Logf("%d acknowledged before SIGKILL, %d deliveries retried after restart", ackedBeforeKill, len(failed))
}
