package store_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/natstest"
	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/auditlog"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// BenchmarkHubScale is issue 29's benchmark: a hub holding N finished
// requests and 100 pending, at N = 1,000 and 100,000, on each store (a
// bbolt file; JetStream on three nats-server processes, replicas 3). The
// hub runs as its own process (this test binary again), pinned to core 1
// with taskset; the benchmark, its HTTP load and the nats-servers run
// where it is started (run it under `taskset -c 0`). The service is a
// stub that accepts at once: the figures exclude the service's own
// answer. The finished requests are written straight through the
// store's write path (export_test.go's FillFinished: the records the API
// writes for a payout sent at once; on JetStream the audit record's
// lines too), the 100 pending through the API. It prints each figure at
// both sizes:
//
//	taskset -c 0 go test ./webhookrelay/hub/store -run '^$' -bench HubScale -benchtime 1x -timeout 60m
//
// HUB_SCALE_SIZES (e.g. "1000,10000") measures other sizes.
func BenchmarkHubScale(b *testing.B) {
	sizes := []int{1000, 100_000}
	if s := os.Getenv("HUB_SCALE_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		b.Skip("taskset is not installed")
	}
	for _, kind := range []string{"bbolt", "jetstream"} {
		b.Run(kind, func(b *testing.B) {
			var urls []string
			if kind == "jetstream" {
				urls = natstest.StartProcesses(b, 3).URLs()
			}
			var rows []figures
			for _, n := range sizes {
				rows = append(rows, measureScale(b, kind, urls, n))
			}
			printFigures(kind, sizes, rows)
			last := rows[len(rows)-1]
			b.ReportMetric(last.submit, "submit-ms")
			b.ReportMetric(last.list, "list-ms")
			b.ReportMetric(last.approve, "approve-ms")
			b.ReportMetric(last.rssMB, "RSS-MB")
		})
	}
}

// figures are one size's measurements, in ms (medians of scaleRounds)
// and MB.
type figures struct {
	fill                           time.Duration
	submit, list, approve, onPush  float64
	start, join, restart           float64
	rssMB, joinRSSMB               float64
	submitMax, listMax, approveMax float64
	onPushMax                      float64
}

// scaleRounds is how many times each figure is measured.
const scaleRounds = 30

func printFigures(kind string, sizes []int, rows []figures) {
	fmt.Printf("\nhub scale, %s store (ms: median / worst of %d; the hub process pinned with taskset -c 1)\n", kind, scaleRounds)
	fmt.Printf("%-34s", "finished requests held")
	for _, n := range sizes {
		fmt.Printf("%22d", n)
	}
	fmt.Println()
	line := func(name string, f func(r figures) string) {
		fmt.Printf("%-34s", name)
		for _, r := range rows {
			fmt.Printf("%22s", f(r))
		}
		fmt.Println()
	}
	mm := func(a, b float64) string { return fmt.Sprintf("%.2f / %.2f", a, b) }
	line("fill (store's write path)", func(r figures) string { return r.fill.Round(10 * time.Millisecond).String() })
	line("submit (needs approval)", func(r figures) string { return mm(r.submit, r.submitMax) })
	line("list pending", func(r figures) string { return mm(r.list, r.listMax) })
	line("approve (and send, stub service)", func(r figures) string { return mm(r.approve, r.approveMax) })
	line("Approvals view: list on push", func(r figures) string { return mm(r.onPush, r.onPushMax) })
	if kind == "jetstream" {
		line("first start after the fill", func(r figures) string { return fmt.Sprintf("%.0f", r.start) })
		line("hub restart until it serves", func(r figures) string { return fmt.Sprintf("%.0f", r.restart) })
	} else {
		line("hub start until it serves", func(r figures) string { return fmt.Sprintf("%.0f", r.start) })
	}
	if kind == "jetstream" {
		line("second hub joins until it serves", func(r figures) string { return fmt.Sprintf("%.0f", r.join) })
		line("second hub RSS (MB)", func(r figures) string { return fmt.Sprintf("%.1f", r.joinRSSMB) })
	}
	line("hub process RSS (MB)", func(r figures) string { return fmt.Sprintf("%.1f", r.rssMB) })
}

// scalePolicy: payouts over 1,000.00 GBP need one approval.
var scalePolicy = policy.Policy{Over: map[string]int64{"GBP": 1000_00}, Approvers: 1, TTL: 24 * time.Hour}

func measureScale(b *testing.B, kind string, urls []string, n int) figures {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	usersFile := filepath.Join(dir, "team.toml")
	tokens := map[string]string{}
	for name, roles := range map[string][]string{"ada": {users.RoleRequest, users.RoleView}, "bob": {users.RoleApprove, users.RoleView}} {
		tok, err := users.Add(usersFile, name, roles)
		if err != nil {
			b.Fatal(err)
		}
		tokens[name] = tok
	}
	env := []string{"HUB_SCALE_CHILD=" + kind, "HUB_SCALE_USERS=" + usersFile}
	var f figures
	began := time.Now()
	switch kind {
	case "bbolt":
		path := filepath.Join(dir, "approvals.db")
		st, err := store.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := store.FillFinished(st, n, time.Now()); err != nil {
			b.Fatal(err)
		}
		st.Close()
		env = append(env, "HUB_SCALE_PATH="+path)
	default:
		name := fmt.Sprintf("SCALE%d", n)
		nc, js := natstest.Client(b, urls)
		octx, cancel := context.WithTimeout(ctx, time.Minute)
		st, err := store.OpenJetStream(octx, js, store.JetStreamConfig{Name: name, Replicas: 3})
		if err != nil {
			b.Fatal(err)
		}
		audit, err := auditlog.Open(octx, js, auditlog.Config{Name: name, Profile: "hub", Replicas: 3})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		audit.Close()
		if err := store.FillFinished(st, n, time.Now()); err != nil {
			b.Fatal(err)
		}
		if err := store.FillAudit(js, name, n, time.Now()); err != nil {
			b.Fatal(err)
		}
		st.Close()
		nc.Close()
		env = append(env, "HUB_SCALE_NATS="+strings.Join(urls, ","), "HUB_SCALE_NAME="+name)
	}
	f.fill = time.Since(began)

	base, first, startMS := startScaleHub(b, env, tokens["ada"])
	pid := first.Process.Pid
	f.start = startMS
	ada := &hubclient.Client{BaseURL: base, Token: tokens["ada"], HTTP: &http.Client{Timeout: time.Minute}}
	bob := &hubclient.Client{BaseURL: base, Token: tokens["bob"], HTTP: &http.Client{Timeout: time.Minute}}
	ref := 0
	submit := func() (string, time.Duration) {
		ref++
		t := time.Now()
		res, err := ada.Submit(ctx, hubapi.Submission{PayoutRequest: api.PayoutRequest{BeneficiaryName: "Payee Ltd",
			BeneficiaryIBAN: "GB94BARC10201530093459", BeneficiaryReference: fmt.Sprintf("PENDING-%d", ref), Currency: "GBP",
			AmountInMinor: 5000_00 + int64(ref), ContextCode: api.ContextCodeWithdrawal}})
		d := time.Since(t)
		if err != nil || res.Status != hubapi.StatusAwaitingApproval {
			b.Fatalf("submit: %+v %v", res, err)
		}
		return res.ApprovalID, d
	}
	var pendingIDs []string
	for range 100 {
		id, _ := submit()
		pendingIDs = append(pendingIDs, id)
	}
	var ds []time.Duration
	for range scaleRounds {
		id, d := submit()
		pendingIDs = append(pendingIDs, id)
		ds = append(ds, d)
	}
	f.submit, f.submitMax = medianMax(ds)
	ds = ds[:0]
	for range scaleRounds {
		t := time.Now()
		rs, err := bob.List(ctx, false)
		ds = append(ds, time.Since(t))
		if err != nil || len(rs) < 100 {
			b.Fatalf("list: %d requests, %v", len(rs), err)
		}
	}
	f.list, f.listMax = medianMax(ds)

	// The Approvals view lists on each push of the feed: a change is
	// made, and the time from its push to the list answered is counted.
	wctx, stopWatch := context.WithCancel(ctx)
	pushes := make(chan struct{}, 64)
	up := make(chan struct{}, 1)
	go func() {
		_ = bob.Watch(wctx, func(hubapi.Change) { pushes <- struct{}{} }, func(s hubclient.FeedState) {
			if s.Err == nil {
				select {
				case up <- struct{}{}:
				default:
				}
			}
		})
	}()
	select {
	case <-up:
	case <-time.After(30 * time.Second):
		b.Fatal("the approvals feed did not come up")
	}
	ds = ds[:0]
	for range scaleRounds {
		id, _ := submit()
		pendingIDs = append(pendingIDs, id)
		select {
		case <-pushes:
		case <-time.After(30 * time.Second):
			b.Fatal("no push for a submission")
		}
		t := time.Now()
		if _, err := bob.List(ctx, false); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
		for len(pushes) > 0 {
			<-pushes
		}
	}
	stopWatch()
	f.onPush, f.onPushMax = medianMax(ds)

	ds = ds[:0]
	for _, id := range pendingIDs[:scaleRounds] {
		t := time.Now()
		r, err := bob.Approve(ctx, id)
		ds = append(ds, time.Since(t))
		if err != nil || r.Status != store.StatusSent {
			b.Fatalf("approve %s: %+v %v", id, r, err)
		}
	}
	f.approve, f.approveMax = medianMax(ds)
	f.rssMB = rssMB(b, pid)
	if kind == "jetstream" {
		_, second, joinMS := startScaleHub(b, env, tokens["ada"])
		f.join = joinMS
		f.joinRSSMB = rssMB(b, second.Process.Pid)
		_ = second.Process.Kill()
		_ = first.Process.Kill()
		_, _ = first.Process.Wait()
		_, _, f.restart = startScaleHub(b, env, tokens["ada"])
	}
	return f
}

// startScaleHub starts the hub as its own process on core 1 and returns
// its address, process and the milliseconds from its start until it
// answered /hub/v1/me.
func startScaleHub(b *testing.B, env []string, token string) (string, *exec.Cmd, float64) {
	b.Helper()
	cmd := exec.Command("taskset", "-c", "1", os.Args[0], "-test.run=^$") //nolint:gosec // this test binary
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				addr <- a
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-time.After(2 * time.Minute):
		b.Fatal("the hub process did not start")
	}
	c := &hubclient.Client{BaseURL: base, Token: token, HTTP: &http.Client{Timeout: 10 * time.Second}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+hubapi.PathMe, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.HTTP.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return base, cmd, float64(time.Since(began).Microseconds()) / 1000
}

func rssMB(b *testing.B, pid int) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func medianMax(ds []time.Duration) (float64, float64) {
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(s[len(s)/2]), ms(s[len(s)-1])
}

func init() { store.BenchChild = runScaleHub }

// runScaleHub is the hub process of the benchmark: the store the parent
// filled, the users file, a stub service, the hub's API on a loopback
// port it prints; it runs until killed.
func runScaleHub() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "scale hub:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	var st *store.Store
	var err error
	began := time.Now()
	defer func() {
		fmt.Fprintf(os.Stderr, "scale hub: stores open in %s\n", time.Since(began).Round(time.Millisecond))
	}()
	if path := os.Getenv("HUB_SCALE_PATH"); path != "" {
		st, err = store.Open(path)
	} else {
		nc, js := scaleConnect(strings.Split(os.Getenv("HUB_SCALE_NATS"), ","))
		defer nc()
		name := os.Getenv("HUB_SCALE_NAME")
		octx, cancel := context.WithTimeout(ctx, time.Minute)
		st, err = store.OpenJetStream(octx, js, store.JetStreamConfig{Name: name, Replicas: 3})
		fmt.Fprintf(os.Stderr, "scale hub: approvals store open in %s\n", time.Since(began).Round(time.Millisecond))
		if err == nil {
			// Opened as serve opens it, for its start: the stub service
			// does not write to it.
			_, err = auditlog.Open(octx, js, auditlog.Config{Name: name, Profile: "hub", Replicas: 3})
		}
		cancel()
	}
	if err != nil {
		fail(err)
	}
	live, err := users.Open(os.Getenv("HUB_SCALE_USERS"), hub.CheckUsers(scalePolicy))
	if err != nil {
		fail(err)
	}
	h, err := hub.New(hub.Config{Users: live, Store: st, Policy: scalePolicy, Pipeline: stubService{}})
	if err != nil {
		fail(err)
	}
	go func() { _ = h.Run(ctx) }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fail(srv.Serve(ln))
}

// stubService accepts every payout at once: the benchmark measures the
// hub, not the service.
type stubService struct{}

func (stubService) Check(context.Context, *api.PayoutRequest, map[string]int64, bool) error {
	return nil
}
func (stubService) Send(context.Context, *api.PayoutRequest, bool) (hub.Outcome, error) {
	return hub.Outcome{Class: hub.Accepted, State: hub.Accepted, Detail: "accepted by the stub"}, nil
}
func (stubService) Lookup(context.Context, string) (string, bool, error) { return "", false, nil }

// scaleConnect connects the hub process to the cluster, as natstest.Client
// does for a test.
func scaleConnect(urls []string) (func(), jetstream.JetStream) {
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale hub:", err)
		os.Exit(1)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale hub:", err)
		os.Exit(1)
	}
	return nc.Close, js
}
