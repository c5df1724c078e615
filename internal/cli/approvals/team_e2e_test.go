package approvals_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/approvals"
	"github.com/paydash/paydash/internal/cli/batch"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/cli/headless"
	"github.com/paydash/paydash/internal/cli/serve"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubtest"
)

// The team end to end: the sandbox, `paydash relay --users` as the hub
// and three people over loopback: ada (request), bob (request, approve)
// and vic (view). Payouts are counted in the sandbox's own report.

const (
	payee  = "GB33BUKB20201555555555"
	payee2 = "GB94BARC10201530093459"
	shared = "the-shared-relay-token-0123"
)

type team struct {
	t       *testing.T
	ht      *hubtest.Team
	svc     *api.Client
	cfg     string
	users   string
	store   string
	state   string
	addr    string
	tokens  map[string]string
	notes   *notes
	stopHub func()
}

type notes struct {
	mu    sync.Mutex
	texts []string
}

func (n *notes) has(sub string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, t := range n.texts {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

func startTeam(t *testing.T) *team {
	t.Helper()
	ht := hubtest.New(t, hubtest.Options{KeyID: "k1", People: []hubtest.Person{
		{Name: "ada", Roles: []string{"request"}}, {Name: "bob", Roles: []string{"request", "approve"}}, {Name: "vic", Roles: []string{"view"}}}})
	tm := &team{t: t, ht: ht, svc: ht.Service, users: ht.UsersFile, store: filepath.Join(ht.Dir, "approvals.db"),
		state: t.TempDir(), addr: ht.HubAddr, tokens: ht.Tokens, notes: &notes{}}
	tm.cfg = ht.WriteConfig(t, fmt.Sprintf("[profiles.shared]\n%spayouts_via_relay = true\nrelay_url = \"ws://%s/ws\"\nrelay_token = %q\n",
		ht.ServiceTOML(), tm.addr, shared))
	notify := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var m struct {
			Text string `json:"text"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		tm.notes.mu.Lock()
		tm.notes.texts = append(tm.notes.texts, m.Text)
		tm.notes.mu.Unlock()
	}))
	t.Cleanup(notify.Close)
	if err := tm.startHub("--notify-url", notify.URL); err != nil {
		t.Fatal(err)
	}
	return tm
}

func (tm *team) streams(in string) (*cmdutil.Streams, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &cmdutil.Streams{In: strings.NewReader(in), Out: &out, Err: &errb, Getenv: tm.getenv}, &out, &errb
}

func (tm *team) getenv(k string) string {
	if k == "XDG_STATE_HOME" || k == "HOME" {
		return tm.state
	}
	return ""
}

// startHub runs `paydash --profile hub relay --users ... [args]` in
// process, on tm.addr, and waits for its start-up line.
func (tm *team) startHub(args ...string) error {
	t := tm.t
	o := &serve.RelayOptions{}
	fs := pflag.NewFlagSet("relay", pflag.ContinueOnError)
	o.Bind(fs)
	base := []string{"--json", "--listen", tm.addr, "--token", shared, "--users", tm.users, "--approve-over", "GBP=1000.00",
		"--send-profile", "hub", "--approvals-store", tm.store}
	if err := fs.Parse(append(base, args...)); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: pw, Err: &errb, Getenv: tm.getenv}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := serve.Relay(ctx, s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "hub"}, o)
		pw.CloseWithError(errors.New("relay returned"))
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		return <-done
	}
	if !strings.Contains(line, `"hub_url"`) {
		t.Fatalf("start-up line without the hub: %s", line)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	tm.stopHub = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("hub stopped with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("hub did not stop")
		}
	}
	t.Cleanup(func() {
		if tm.stopHub != nil {
			tm.stopHub()
			tm.stopHub = nil
		}
	})
	return nil
}

// create runs `paydash --profile WHO payout create ... --yes --json`.
func (tm *team) create(who, ref, iban, amount, currency string, extra func(*approvals.ViaHubOptions)) (map[string]any, int) {
	tm.t.Helper()
	s, out, errb := tm.streams("")
	p, err := cmdutil.LoadProfile(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: who})
	if err != nil {
		tm.t.Fatal(err)
	}
	minor, err := api.ParseAmount(amount, currency, false)
	if err != nil {
		tm.t.Fatal(err)
	}
	req := &api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Payee Ltd", BeneficiaryIBAN: iban, BeneficiaryReference: ref,
		AmountInMinor: minor, Currency: currency, ContextCode: api.ContextCodeWithdrawal}
	o := approvals.ViaHubOptions{Yes: true, JSON: true}
	if extra != nil {
		extra(&o)
	}
	// What payout create runs on a profile that sends through the hub.
	hc, err := (&approvals.Conn{}).Client(p)
	if err != nil {
		tm.t.Fatal(err)
	}
	err = approvals.CreateViaHub(context.Background(), s, hc, p.Name, req, nil, o)
	var res map[string]any
	if out.Len() > 0 {
		if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
			tm.t.Fatalf("payout create --json printed %q: %v", out.String(), jerr)
		}
	}
	_ = errb
	return res, cmdutil.ExitCode(err)
}

// run runs `paydash --profile WHO approvals ARGS...`.
func (tm *team) run(who string, args ...string) (string, int, error) {
	tm.t.Helper()
	s, out, errb := tm.streams("")
	c := approvals.Command(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: who})
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.ExecuteContext(context.Background())
	return out.String() + errb.String(), cmdutil.ExitCode(err), err
}

func (tm *team) inReport(ref string) int {
	tm.t.Helper()
	return tm.ht.CountPayouts(tm.t, ref)
}

func TestTeamEndToEnd(t *testing.T) {
	tm := startTeam(t)

	// Below the threshold: sent at once, as today.
	res, code := tm.create("ada", "E2E-SMALL", payee, "10.00", "GBP", nil)
	if code != 0 || res["status"] != "sent" || res["accepted"] != true {
		t.Fatalf("small payout: exit %d %v", code, res)
	}

	// Above it: awaiting approval, exit 5, nothing sent.
	res, code = tm.create("ada", "E2E-BIG", payee2, "1500.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval || res["status"] != "awaiting_approval" || res["approval_id"] == "" {
		t.Fatalf("big payout: exit %d %v", code, res)
	}
	big := res["approval_id"].(string)
	if tm.inReport("E2E-BIG") != 0 {
		t.Fatal("sent before approval")
	}
	// What awaits approval is not available: balances on a team profile
	// count it.
	bals, err := tm.svc.Balances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := tm.streams("")
	p, err := cmdutil.LoadProfile(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "vic"})
	if err != nil {
		t.Fatal(err)
	}
	held, err := factory.HeldBalances(p, tm.svc, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := held.Balances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range bals {
		want := bals[i].AvailableBalanceInMinor
		if bals[i].Currency == "GBP" {
			want -= 1500_00
		}
		if hb[i].AvailableBalanceInMinor != want {
			t.Fatalf("%s available on a team profile: %d, want %d", bals[i].Currency, hb[i].AvailableBalanceInMinor, want)
		}
	}

	// The viewer lists it with every field a script reads.
	out, code, err := tm.run("vic", "list", "--json")
	if code != 0 {
		t.Fatalf("vic list: %d %v", code, err)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --json: %s (%v)", out, err)
	}
	for _, f := range []string{"id", "status", "payout_state", "requested_by", "approved_by", "rejected_by", "reason",
		"amount_in_minor", "currency", "beneficiary_name", "beneficiary_reference", "transaction_id"} {
		if _, ok := list[0][f]; !ok {
			t.Errorf("list --json lacks %s: %v", f, list[0])
		}
	}
	if list[0]["status"] != "pending" || list[0]["requested_by"] != "ada" || list[0]["amount_in_minor"] != float64(150000) {
		t.Fatalf("listed: %v", list[0])
	}
	// bob's list says one awaits him; vic (view only) and ada are told none.
	if out, _, _ := tm.run("bob", "list"); !strings.Contains(out, "1 await your approval") || !strings.Contains(out, big) {
		t.Fatalf("bob's list:\n%s", out)
	}
	if out, _, _ := tm.run("vic", "list"); strings.Contains(out, "await your approval") {
		t.Fatalf("vic's list:\n%s", out)
	}

	// Neither the viewer nor a requester without approve can approve; the
	// viewer cannot request; the shared relay token cannot request.
	if _, code, _ := tm.run("vic", "approve", big, "--yes"); code != cmdutil.ExitUsage {
		t.Fatalf("vic approve: exit %d", code)
	}
	if _, code, _ := tm.run("ada", "approve", big, "--yes"); code != cmdutil.ExitUsage {
		t.Fatalf("ada approve: exit %d", code)
	}
	if _, code := tm.create("vic", "E2E-VIEW", payee, "1.00", "GBP", nil); code != cmdutil.ExitUsage {
		t.Fatalf("vic payout create: exit %d", code)
	}
	if _, code := tm.create("shared", "E2E-SHARED", payee, "1.00", "GBP", nil); code != cmdutil.ExitUsage {
		t.Fatalf("payout with the shared token: exit %d", code)
	}

	// bob approves: sent once.
	out, code, err = tm.run("bob", "approve", big, "--yes")
	if code != 0 || !strings.Contains(out, "Sent") {
		t.Fatalf("bob approve: exit %d %v %s", code, err, out)
	}
	if n := tm.inReport("E2E-BIG"); n != 1 {
		t.Fatalf("%d payouts after approval, want 1", n)
	}
	// Approving a sent request again sends nothing more.
	if _, code, _ := tm.run("bob", "approve", big, "--yes"); code != 0 {
		t.Fatalf("repeated approve: exit %d", code)
	}
	if n := tm.inReport("E2E-BIG"); n != 1 {
		t.Fatalf("%d payouts after a repeated approval, want 1", n)
	}

	// The requester never approves their own request, approve role or not.
	res, code = tm.create("bob", "E2E-OWN", payee2, "2000.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("bob's big payout: exit %d %v", code, res)
	}
	if _, code, _ := tm.run("bob", "approve", res["approval_id"].(string), "--yes"); code != cmdutil.ExitUsage {
		t.Fatalf("bob approving his own: exit %d", code)
	}

	// No splitting: 600 + 600 to one payee by one requester within 24 h.
	if _, code := tm.create("ada", "E2E-SPLIT-1", payee, "600.00", "GBP", nil); code != 0 {
		t.Fatalf("first half: exit %d", code)
	}
	res, code = tm.create("ada", "E2E-SPLIT-2", payee, "600.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("second half: exit %d %v", code, res)
	}

	// A currency with no threshold: every payout needs approval. Rejected
	// with a reason, it can no longer be approved.
	res, code = tm.create("ada", "E2E-EUR", "DE89370400440532013000", "1.00", "EUR", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("EUR: exit %d %v", code, res)
	}
	eur := res["approval_id"].(string)
	if _, code, _ := tm.run("bob", "reject", eur); code != cmdutil.ExitUsage {
		t.Fatalf("reject without --reason: exit %d", code)
	}
	if out, code, _ := tm.run("bob", "reject", eur, "--reason", "wrong account"); code != 0 || !strings.Contains(out, "wrong account") {
		t.Fatalf("reject: exit %d %s", code, out)
	}
	if _, code, _ := tm.run("bob", "approve", eur, "--yes"); code != cmdutil.ExitNotAccepted {
		t.Fatalf("approving a rejected request: exit %d", code)
	}
	if !tm.notes.has("ada asks for approval") {
		t.Errorf("no notification of a new request: %v", tm.notes.texts)
	}

	// A restart keeps every request and decision; a request made under a
	// short TTL lapses, cannot be approved, and the lapse is posted.
	tm.stopHub()
	tm.stopHub = nil
	notify := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		tm.notes.mu.Lock()
		tm.notes.texts = append(tm.notes.texts, string(body))
		tm.notes.mu.Unlock()
	}))
	defer notify.Close()
	if err := tm.startHub("--approval-ttl", "300ms", "--notify-url", notify.URL); err != nil {
		t.Fatal(err)
	}
	out, _, _ = tm.run("vic", "show", eur)
	if !strings.Contains(out, "rejected") || !strings.Contains(out, "wrong account") {
		t.Fatalf("after restart, show: %s", out)
	}
	res, code = tm.create("ada", "E2E-LAPSE", payee2, "3000.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("lapse candidate: exit %d", code)
	}
	time.Sleep(400 * time.Millisecond)
	if _, code, err := tm.run("bob", "approve", res["approval_id"].(string), "--yes"); code != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "lapsed") {
		t.Fatalf("approving a lapsed request: exit %d %v", code, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !tm.notes.has("lapsed") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !tm.notes.has("lapsed") {
		t.Errorf("no notification of the lapse")
	}
	// As the lapse says: request it again if it is still due; approved in
	// time (the hub back on its default TTL), it is paid once.
	tm.stopHub()
	tm.stopHub = nil
	if err := tm.startHub(); err != nil {
		t.Fatal(err)
	}
	res, code = tm.create("ada", "E2E-LAPSE", payee2, "3000.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("requested again: exit %d", code)
	}
	if _, code, err := tm.run("bob", "approve", res["approval_id"].(string), "--yes"); code != 0 {
		t.Fatalf("approving the new request: exit %d %v", code, err)
	}

	// The record has who and when for every step.
	out, code, _ = tm.run("vic", "log", "--json")
	var log []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &log) != nil {
		t.Fatalf("log: %d %s", code, out)
	}
	var acts []string
	for _, e := range log {
		if e["request_id"] == big {
			acts = append(acts, fmt.Sprintf("%v/%v", e["action"], e["by"]))
		}
	}
	// The hub follows what it sent in process, from the relay's own
	// store: the payout's final state may already be recorded after the
	// outcome, never before it.
	if got := strings.TrimSuffix(strings.Join(acts, " "), " payout_state/<nil>"); got != "requested/ada approved/bob sending/hub outcome/<nil>" {
		t.Fatalf("record of %s: %v", big, acts)
	}

	// A batch is one request: each row within the threshold, but the GBP
	// total above it, so it waits for approval whole (exit 5).
	csv := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(csv, []byte("name,iban,reference,amount,currency\n"+
		"Payee Ltd,GB29NWBK60161331926819,E2E-BATCH-1,600.00,GBP\n"+
		"Payee Ltd,GB82WEST12345698765432,E2E-BATCH-2,600.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, bout, _ := tm.streams("")
	err = batch.Command(context.Background(), s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "ada"}, csv,
		&batch.CommandOptions{Yes: true, JSON: true, DuplicateWindow: time.Hour})
	var bres map[string]any
	if cmdutil.ExitCode(err) != cmdutil.ExitAwaitingApproval || json.Unmarshal(bout.Bytes(), &bres) != nil || bres["status"] != "awaiting_approval" {
		t.Fatalf("batch through the hub: exit %d %v\n%s", cmdutil.ExitCode(err), err, bout)
	}
	batchID := bres["batch_id"].(string)
	if n := tm.inReport("E2E-BATCH-1") + tm.inReport("E2E-BATCH-2"); n != 0 {
		t.Fatalf("%d batch payouts before approval", n)
	}
	// A row alone is not approved; the batch is, whole.
	rows := bres["rows"].([]any)
	if _, code, _ := tm.run("bob", "approve", rows[0].(map[string]any)["id"].(string), "--yes"); code != cmdutil.ExitNotAccepted {
		t.Fatalf("approving one row: exit %d", code)
	}
	if out, code, err := tm.run("bob", "approve", batchID, "--yes"); code != 0 || !strings.Contains(out, "sent") {
		t.Fatalf("approving the batch: exit %d %v\n%s", code, err, out)
	}

	// payouts log on a team profile reads the hub's audit record: every
	// payout the team sent, from the hub.
	s, out2, _ := tm.streams("")
	plog := headless.PayoutsCommand(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "vic"})
	plog.SetArgs([]string{"log", "--json"})
	plog.SilenceUsage, plog.SilenceErrors = true, true
	if err := plog.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("payouts log: %v", err)
	}
	var attempts []map[string]any
	if err := json.Unmarshal(out2.Bytes(), &attempts); err != nil {
		t.Fatalf("payouts log --json: %v\n%s", err, out2)
	}
	sent := map[string]string{}
	for _, a := range attempts {
		if a["source"] != "hub" {
			t.Errorf("an attempt not from the hub: %v", a)
		}
		sent[a["beneficiary_reference"].(string)], _ = a["outcome"].(string)
	}
	for _, ref := range []string{"E2E-SMALL", "E2E-BIG", "E2E-SPLIT-1", "E2E-BATCH-1", "E2E-BATCH-2"} {
		if sent[ref] == "" {
			t.Errorf("payouts log lacks %s (or its outcome): %v", ref, sent)
		}
	}
	if _, ok := sent["E2E-EUR"]; ok {
		t.Errorf("a rejected request is in the audit record of sends")
	}

	// Counted in the service's own report: only what was sent.
	for ref, want := range map[string]int{"E2E-SMALL": 1, "E2E-BIG": 1, "E2E-OWN": 0, "E2E-SPLIT-1": 1, "E2E-SPLIT-2": 0,
		"E2E-EUR": 0, "E2E-LAPSE": 1, "E2E-VIEW": 0, "E2E-SHARED": 0, "E2E-BATCH-1": 1, "E2E-BATCH-2": 1} {
		if n := tm.inReport(ref); n != want {
			t.Errorf("%s: %d payouts in the sandbox's report, want %d", ref, n, want)
		}
	}
}

func TestHubRefusesToStartMisconfigured(t *testing.T) {
	tm := startTeam(t)
	tm.stopHub()
	tm.stopHub = nil
	err := tm.startHub("--approvers", "2")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--approvers 2") {
		t.Fatalf("--approvers 2 with one approver: %v", err)
	}
	// An operator's profile cannot be the send profile: it holds no key.
	err = tm.startHub("--send-profile", "ada")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "give --send-profile the profile that holds the signing key") {
		t.Fatalf("--send-profile ada: %v", err)
	}
	// As both say: the profile with the key, and one approver, start.
	if err := tm.startHub(); err != nil {
		t.Fatalf("as advised: %v", err)
	}
}

func TestTeamWaitFollowsThroughApprovalToTheFinalState(t *testing.T) {
	tm := startTeam(t)
	type result struct {
		res  map[string]any
		code int
	}
	done := make(chan result, 1)
	go func() {
		res, code := tm.create("ada", "E2E-WAIT", payee, "2500.00", "GBP", func(o *approvals.ViaHubOptions) { o.Wait = 30 * time.Second })
		done <- result{res, code}
	}()
	var id string
	deadline := time.Now().Add(10 * time.Second)
	for id == "" {
		out, _, _ := tm.run("vic", "list", "--json")
		var list []map[string]any
		if json.Unmarshal([]byte(out), &list) == nil && len(list) == 1 {
			id, _ = list[0]["id"].(string)
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never appeared")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case r := <-done:
		t.Fatalf("--wait returned before the approval: %+v", r)
	default:
	}
	if _, code, err := tm.run("bob", "approve", id, "--yes"); code != 0 {
		t.Fatalf("approve: %d %v", code, err)
	}
	select {
	case r := <-done:
		if r.code != 0 || r.res["status"] != "sent" || r.res["payout_state"] != api.StateSettled {
			t.Fatalf("--wait through approval: exit %d %v", r.code, r.res)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("--wait never returned")
	}
	if n := tm.inReport("E2E-WAIT"); n != 1 {
		t.Fatalf("%d payouts", n)
	}
}

func TestApproveOnAProductionProfileAsksForTheAmount(t *testing.T) {
	tm := startTeam(t)
	res, code := tm.create("ada", "E2E-PROD", payee, "1500.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("exit %d", code)
	}
	id := res["approval_id"].(string)
	s, _, _ := tm.streams("")
	p, err := cmdutil.LoadProfile(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := (&approvals.Conn{}).Client(p)
	if err != nil {
		t.Fatal(err)
	}
	approve := func(typed string) (string, int) {
		s, out, errb := tm.streams(typed + "\n")
		s.InTerminal, s.ErrTerminal = true, true
		err := approvals.Approve(context.Background(), s, hc, true, id, false, false)
		return out.String() + errb.String(), cmdutil.ExitCode(err)
	}
	// A reflexive "y" does not approve real money.
	if out, code := approve("y"); code != cmdutil.ExitCancelled || !strings.Contains(out, "type the amount (1500.00)") {
		t.Fatalf("typed y: exit %d\n%s", code, out)
	}
	if n := tm.inReport("E2E-PROD"); n != 0 {
		t.Fatalf("%d payouts after a declined approval", n)
	}
	if out, code := approve("1500.00"); code != 0 || !strings.Contains(out, "Sent") {
		t.Fatalf("typed the amount: exit %d\n%s", code, out)
	}
	if n := tm.inReport("E2E-PROD"); n != 1 {
		t.Fatalf("%d payouts", n)
	}
}

func TestTeamPaymentsAreSignedAndSentByTheHub(t *testing.T) {
	tm := startTeam(t)
	pay := func(who string, extra ...string) (map[string]any, string, int) {
		s, out, errb := tm.streams("")
		c := headless.PaymentCommand(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: who})
		args := append([]string{"create", "--amount", "25.00", "--currency", "GBP", "--reference", "ORDER-42",
			"--user-name", "Ada Lovelace", "--user-email", "ada@example.com", "--json", "--yes"}, extra...)
		c.SetArgs(args)
		c.SilenceUsage, c.SilenceErrors = true, true
		err := c.ExecuteContext(context.Background())
		var res map[string]any
		_ = json.Unmarshal(out.Bytes(), &res)
		msg := errb.String()
		if err != nil {
			msg += err.Error()
		}
		return res, msg, cmdutil.ExitCode(err)
	}
	const gbpAccount = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826"
	const key = "3f8e2a4c-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	res, msg, code := pay("ada", "--merchant-account-id", gbpAccount, "--idempotency-key", key)
	if code != 0 || res["id"] == nil || res["id"] == "" {
		t.Fatalf("ada's payment through the hub (no signing key in her profile): exit %d %v %s", code, res, msg)
	}
	// The same key again is the same payment (the hub passes the key on).
	again, _, code := pay("ada", "--merchant-account-id", gbpAccount, "--idempotency-key", key)
	if code != 0 || again["id"] != res["id"] {
		t.Fatalf("retry under the same key: exit %d %v, want payment %v", code, again, res["id"])
	}
	// The service's own refusal is passed on and read as one: nothing
	// was created (a GBP payment into the EUR merchant account).
	if _, msg, code := pay("ada", "--merchant-account-id", "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000978"); code != cmdutil.ExitNotAccepted ||
		!strings.Contains(msg, "the service refused it, so nothing was created") {
		t.Fatalf("refused by the service: exit %d %s", code, msg)
	}
	// A viewer cannot have the hub send anything.
	if _, msg, code := pay("vic", "--merchant-account-id", gbpAccount); code == 0 || !strings.Contains(msg, "does not hold the request role") {
		t.Fatalf("vic's payment: exit %d %s", code, msg)
	}
	out, _, _ := tm.run("vic", "log", "--json")
	var log []map[string]any
	_ = json.Unmarshal([]byte(out), &log)
	n := 0
	for _, e := range log {
		if e["action"] == "payment" && e["by"] == "ada" && e["status"] == "created" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d payments by ada recorded created, want 2 (one payment, asked twice): %v", n, log)
	}
}

func TestTheDashboardsBackendOnATeamProfile(t *testing.T) {
	tm := startTeam(t)
	s, _, _ := tm.streams("")
	p, err := cmdutil.LoadProfile(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := factory.NewTeamBackend(p, tm.svc, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := &api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Payee Ltd", BeneficiaryIBAN: payee,
		BeneficiaryReference: "E2E-FORM", AmountInMinor: 10_00, Currency: "GBP", ContextCode: api.ContextCodeWithdrawal}
	// A payout sent around the hub through this backend (the form sends
	// to the hub itself) is refused before anything is sent, read as such
	// by the one classifier, and names the command that sends it.
	err = b.CreatePayout(ctx, req)
	if a := payout.Classify(err); a.Outcome != payout.OutcomeRefused || a.Reached || !strings.Contains(err.Error(), "paydash payout create") {
		t.Fatalf("payout around the hub on a team profile: %v (%+v)", err, a)
	}
	if n := tm.inReport("E2E-FORM"); n != 0 {
		t.Fatalf("%d payouts around the hub", n)
	}
	// As it says: payout create sends it, once.
	if _, code := tm.create("ada", "E2E-FORM", payee, "10.00", "GBP", nil); code != 0 {
		t.Fatalf("payout create: exit %d", code)
	}
	if n := tm.inReport("E2E-FORM"); n != 1 {
		t.Fatalf("%d payouts", n)
	}
	// Payments go through the hub from the dashboard too.
	pr := &api.PaymentRequest{}
	if err := json.Unmarshal([]byte(`{"amount_in_minor":500,"currency":"GBP","payment_method":{"type":"bank_transfer","provider_selection":{"type":"user_selected"},"beneficiary":{"type":"merchant_account","merchant_account_id":"6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826","reference":"ORDER-7"}},"user":{"name":"Ada Lovelace","email":"ada@example.com"}}`), pr); err != nil {
		t.Fatal(err)
	}
	if resp, err := b.CreatePayment(ctx, pr, uuid.NewString()); err != nil || resp.ID == "" {
		t.Fatalf("payment from the dashboard through the hub: %+v %v", resp, err)
	}
}
