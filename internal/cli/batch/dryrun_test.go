package batch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/batch"
)

// These tests put `payout batch --dry-run` where an operator in trouble
// would: after an answer was lost, after ctrl+c while an answer was
// awaited, while another run holds the journal (its last line half
// written). Each time the dry run must answer at once, change nothing,
// and list every row as one a re-run would send or skip; the re-run
// then does exactly that, and pays every row once.

// answerProxy stands between paydash and the sandbox's payout interface.
// A POST whose body names a reference in drop reaches the service, but
// its answer is lost (the connection is cut); one in cut never reaches it;
// one in hold reaches it and its answer is withheld until release is
// closed or the client gives up. Every POST's reference is recorded.
type answerProxy struct {
	target string // scheme://host of the sandbox
	srv    *httptest.Server

	mu      sync.Mutex
	drop    map[string]bool
	cut     map[string]bool
	hold    map[string]bool
	posts   []string
	held    chan string
	release chan struct{}
	once    sync.Once
}

// letGo releases every held answer.
func (p *answerProxy) letGo() { p.once.Do(func() { close(p.release) }) }

var refInBody = regexp.MustCompile(`"beneficiary_reference":"([^"]*)"`)

func startAnswerProxy(t *testing.T, x *svc) *answerProxy {
	t.Helper()
	p := &answerProxy{target: strings.TrimRight(x.srv.Info().PayoutsURL, "/"), drop: map[string]bool{}, cut: map[string]bool{}, hold: map[string]bool{},
		held: make(chan string, 16), release: make(chan struct{})}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	t.Cleanup(p.letGo) // before Close (cleanups run last first): no answer held past the test
	x.env["PAYDASH_PAYOUTS_URL"] = p.srv.URL
	return p
}

func (p *answerProxy) set(m map[string]bool, refs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(m)
	for _, r := range refs {
		m[r] = true
	}
}

// sent returns the references POSTed since the last call.
func (p *answerProxy) sent() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := slices.Clone(p.posts)
	p.posts = nil
	slices.Sort(out)
	return slices.Compact(out)
}

func (p *answerProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ref := ""
	if m := refInBody.FindSubmatch(body); m != nil && r.Method == http.MethodPost {
		ref = string(m[1])
	}
	p.mu.Lock()
	if ref != "" {
		p.posts = append(p.posts, ref)
	}
	drop, cut, hold := p.drop[ref], p.cut[ref], p.hold[ref]
	p.mu.Unlock()
	if cut {
		closeConn(w)
		return
	}
	out, _ := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	out.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	switch {
	case drop:
		closeConn(w)
		return
	case hold:
		select {
		case p.held <- ref:
		default:
		}
		select {
		case <-p.release:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

func closeConn(w http.ResponseWriter) {
	if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
		c.Close()
	}
}

var (
	wouldSendLine = regexp.MustCompile(`(?m)^\s+would send\s+line (\d+) .*ref "([^"]+)"`)
	wouldSkipLine = regexp.MustCompile(`(?m)^\s+would skip\s+line (\d+) .*ref "([^"]+)"`)
)

// dryRunLists runs a dry run (bounded in time) and returns the references
// it says a re-run would send and skip.
func dryRunLists(t *testing.T, x *svc, file string, rows int) (send, skip []string, out string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	r := x.batch(t, ctx, file, "", CommandOptions{DryRun: true})
	if ctx.Err() != nil || time.Since(start) > 15*time.Second {
		t.Fatalf("the dry run did not answer in time:\n%s", r.all())
	}
	if r.code != 0 {
		t.Fatalf("dry run: exit %d\n%s", r.code, r.all())
	}
	for _, m := range wouldSendLine.FindAllStringSubmatch(r.out, -1) {
		send = append(send, m[2])
	}
	for _, m := range wouldSkipLine.FindAllStringSubmatch(r.out, -1) {
		skip = append(skip, m[2])
	}
	slices.Sort(send)
	slices.Sort(skip)
	if len(send)+len(skip) != rows || len(slices.Compact(append(slices.Clone(send), skip...))) != rows {
		t.Fatalf("the dry run lists %d to send and %d to skip, want each of the %d rows once:\n%s", len(send), len(skip), rows, r.out)
	}
	return send, skip, r.out
}

// fileState is what a dry run must leave as it found: the journal's bytes
// and modification time.
func fileState(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + st.ModTime().String()
}

// reRunDoesWhatTheDryRunSaid runs the same command again and checks it
// sent exactly the rows the dry run listed to send, and paid every row of
// the file once.
func reRunDoesWhatTheDryRunSaid(t *testing.T, x *svc, p *answerProxy, file, prefix string, keys, send []string) {
	t.Helper()
	p.set(p.drop)
	p.set(p.cut)
	p.set(p.hold)
	p.sent()
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("the same command again: exit %d\n%s", r.code, r.all())
	}
	if got := p.sent(); !slices.Equal(got, send) {
		t.Errorf("the re-run sent %v; the dry run said it would send %v", got, send)
	}
	x.wantPaidOnce(t, prefix, keys)
}

// TestDryRunAfterALostAnswer: a row's answer was lost, the request
// having reached the service or not (the run stops there, outcome
// unknown). The dry run answers, lists the row as skipped when the
// service holds it and as sent again under its id when it does not, and
// the re-run does just that.
func TestDryRunAfterALostAnswer(t *testing.T) {
	for _, reached := range []bool{true, false} {
		t.Run(map[bool]string{true: "reached the service", false: "never reached it"}[reached], func(t *testing.T) {
			x := startSvc(t, nil)
			p := startAnswerProxy(t, x)
			file, keys := csvRows(t, t.TempDir(), "LOST", 6, plainAmount)
			if reached {
				p.set(p.drop, "LOST-02")
			} else {
				p.set(p.cut, "LOST-02")
			}
			r := x.batch(t, context.Background(), file, "", yes())
			if r.code == 0 {
				t.Fatalf("a batch with a lost answer succeeded:\n%s", r.all())
			}
			journal := batch.DefaultJournalPath(file)
			before := fileState(t, journal)
			send, skip, out := dryRunLists(t, x, file, 6)
			wantSend := []string{"LOST-02", "LOST-03", "LOST-04", "LOST-05"}
			if reached {
				wantSend = wantSend[1:]
			}
			if !slices.Equal(send, wantSend) {
				t.Errorf("dry run: send %v skip %v, want send %v:\n%s", send, skip, wantSend, out)
			}
			if !reached && !strings.Contains(out, "goes again under the same id") {
				t.Errorf("the dry run does not say the unanswered row goes again under its id:\n%s", out)
			}
			if fileState(t, journal) != before {
				t.Error("the dry run changed the journal")
			}
			reRunDoesWhatTheDryRunSaid(t, x, p, file, "LOST", keys, send)
		})
	}
}

// TestDryRunAfterCtrlCWhileAnAnswerWasAwaited: ctrl+c lands while a row's
// answer is awaited (the service has it). The dry run answers and lists
// what the re-run then does.
func TestDryRunAfterCtrlCWhileAnAnswerWasAwaited(t *testing.T) {
	x := startSvc(t, nil)
	p := startAnswerProxy(t, x)
	file, keys := csvRows(t, t.TempDir(), "CTRLC", 6, plainAmount)
	p.set(p.hold, "CTRLC-03")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.held:
			cancel()
		case <-ctx.Done():
		}
	}()
	r := x.batch(t, ctx, file, "", yes())
	if ctx.Err() == nil {
		t.Fatalf("the batch finished before ctrl+c:\n%s", r.all())
	}
	journal := batch.DefaultJournalPath(file)
	before := fileState(t, journal)
	send, skip, out := dryRunLists(t, x, file, 6)
	if !slices.Contains(skip, "CTRLC-03") || !slices.Contains(send, "CTRLC-05") {
		t.Errorf("dry run: send %v skip %v, want CTRLC-03 (held by the service) skipped and the rows never sent sent:\n%s", send, skip, out)
	}
	if fileState(t, journal) != before {
		t.Error("the dry run changed the journal")
	}
	reRunDoesWhatTheDryRunSaid(t, x, p, file, "CTRLC", keys, send)
}

// TestDryRunWhileAnotherRunHoldsTheJournal: a run is sending (its answer
// awaited, the journal locked). A dry run answers at once, without the
// lock, changes nothing, and lists every row.
func TestDryRunWhileAnotherRunHoldsTheJournal(t *testing.T) {
	x := startSvc(t, nil)
	p := startAnswerProxy(t, x)
	file, keys := csvRows(t, t.TempDir(), "HELD", 6, plainAmount)
	p.set(p.hold, "HELD-03")
	done := make(chan runResult, 1)
	go func() { done <- x.batch(t, context.Background(), file, "", yes()) }()
	select {
	case <-p.held:
	case r := <-done:
		t.Fatalf("the first run ended before holding:\n%s", r.all())
	case <-time.After(20 * time.Second):
		t.Fatal("the first run never reached row HELD-03")
	}
	journal := batch.DefaultJournalPath(file)
	before := fileState(t, journal)
	send, skip, out := dryRunLists(t, x, file, 6)
	if !slices.Contains(send, "HELD-05") || !slices.Contains(skip, "HELD-00") {
		t.Errorf("dry run: send %v skip %v:\n%s", send, skip, out)
	}
	if fileState(t, journal) != before {
		t.Error("the dry run changed the journal another run holds")
	}
	p.letGo()
	if r := <-done; r.code != 0 {
		t.Fatalf("the first run: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "HELD", keys)
}

// TestDryRunReadsAHalfWrittenLastLine: while another run holds the
// journal, its last line may be half written. That is a write in
// progress, not a damaged journal: the dry run reads the complete lines,
// leaves the file as it is, and lists every row.
func TestDryRunReadsAHalfWrittenLastLine(t *testing.T) {
	x := startSvc(t, nil)
	file, _ := csvRows(t, t.TempDir(), "TORN", 4, plainAmount)
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.all())
	}
	journal := batch.DefaultJournalPath(file)
	whole, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := payout.TryLock(journal+".lock", "payout batch "+file)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk.Unlock() }()
	lines := strings.SplitAfter(strings.TrimSuffix(string(whole), "\n"), "\n")
	last := lines[len(lines)-1]
	for name, tail := range map[string]string{
		"half a record":                  `{"kind":"sent","line":3,"transaction_id":"`,
		"a whole record without newline": strings.TrimSuffix(last, "\n"),
		"a cut multi-byte character":     `{"kind":"state","reason":"M` + "\xc3",
		"one byte":                       `{`,
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(journal, append(bytes.Clone(whole), tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			before := fileState(t, journal)
			_, skip, out := dryRunLists(t, x, file, 4)
			if len(skip) != 4 || strings.Contains(out, "damaged") {
				t.Errorf("dry run over a half-written last line: skip %v\n%s", skip, out)
			}
			if fileState(t, journal) != before {
				t.Error("the dry run changed the journal")
			}
		})
	}
	r := x.batch(t, context.Background(), file, "", CommandOptions{DryRun: true, JSON: true})
	if r.code != 0 || !strings.HasPrefix(strings.TrimSpace(r.out), "{") {
		t.Errorf("dry run --json over a half-written line: exit %d\n%s", r.code, r.all())
	}
}
