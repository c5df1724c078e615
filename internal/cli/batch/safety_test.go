package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/batch"
)

// These tests do what an operator does, against the sandbox over HTTP,
// and count payouts in the service's own transaction report: every
// message that tells the operator how to recover is followed word for
// word, and no row may ever be paid twice or lost.

// svc is a sandbox on loopback and a profile (PAYDASH_* variables and a
// private state directory) pointing at it.
type svc struct {
	srv    *sandbox.Server
	client *api.Client
	env    map[string]string
}

func startSvc(t *testing.T, funds map[string]int64) *svc {
	t.Helper()
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if funds == nil {
		funds = map[string]int64{"GBP": 100_000_000, "EUR": 100_000_000}
	}
	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "k1", InitialFunds: funds, History: 0})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	pemKey, _ := api.EncodePrivateKeyPEM(key)
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	info := srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	env := map[string]string{
		"PAYDASH_AUTH_URL": info.AuthURL, "PAYDASH_BASE_URL": info.BaseURL, "PAYDASH_PAYOUTS_URL": info.PayoutsURL,
		"PAYDASH_CLIENT_ID": info.ClientID, "PAYDASH_CLIENT_SECRET": info.ClientSecret,
		"PAYDASH_SIGNING_KEY_ID": "k1", "PAYDASH_SIGNING_KEY_FILE": keyFile,
		"HOME": filepath.Join(root, "home"), "XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_STATE_HOME": filepath.Join(root, "state"),
	}
	return &svc{srv: srv, client: client, env: env}
}

type runResult struct {
	out, err string
	code     int
	e        error
}

func (r runResult) all() string {
	s := r.out + r.err
	if r.e != nil {
		s += r.e.Error()
	}
	return s
}

// batch runs `paydash payout batch FILE` with the options, stdin as
// given and no terminal (a script, a cron job, a pipe).
func (x *svc) batch(t *testing.T, ctx context.Context, file, stdin string, o CommandOptions) runResult {
	t.Helper()
	if o.DuplicateWindow == 0 {
		o.DuplicateWindow = payout.DefaultWindow
	}
	var out, errb bytes.Buffer
	s := &cmdutil.Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb, Getenv: func(k string) string { return x.env[k] }}
	err := Command(ctx, s, &cmdutil.Global{}, file, &o)
	return runResult{out: out.String(), err: errb.String(), code: cmdutil.ExitCode(err), e: err}
}

// paid counts the report's payouts per "reference amount".
func (x *svc) paid(t *testing.T, refPrefix string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	txs, err := x.client.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, tx := range txs {
		if strings.HasPrefix(tx.BeneficiaryReference, refPrefix) {
			n[tx.BeneficiaryReference+" "+api.FormatAmountPlain(tx.AmountInMinor, tx.Currency)+" "+tx.Currency]++
		}
	}
	return n
}

// wantPaidOnce checks every row of the file's content is in the report
// exactly once, and nothing else with the prefix is.
func (x *svc) wantPaidOnce(t *testing.T, prefix string, rows []string) {
	t.Helper()
	got := x.paid(t, prefix)
	want := map[string]int{}
	for _, r := range rows {
		want[r]++
	}
	for k, n := range got {
		if n != want[k] {
			t.Errorf("%s paid %d time(s), want %d", k, n, want[k])
		}
	}
	for k := range want {
		if got[k] == 0 {
			t.Errorf("%s was never paid (lost)", k)
		}
	}
}

// csvRows writes a batch file of n rows REF-00.. and returns its path and
// the "reference amount" keys of its rows.
func csvRows(t *testing.T, dir, prefix string, n int, amount func(i int) string) (string, []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,iban,reference,amount,currency\n")
	var keys []string
	for i := range n {
		a := amount(i)
		fmt.Fprintf(&b, "Payee %02d,%s,%s-%02d,%s,GBP\n", i, ibanGB, prefix, i, a)
		keys = append(keys, fmt.Sprintf("%s-%02d %s GBP", prefix, i, a))
	}
	p := filepath.Join(dir, "payouts.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p, keys
}

func plainAmount(i int) string { return fmt.Sprintf("%d.%02d", 10+i, i) }

func yes() CommandOptions { return CommandOptions{Yes: true} }

// mvCommand finds "mv A B" in an error message; the test runs it as a
// person would paste it.
var mvCommand = regexp.MustCompile(`\(mv (\S+) (\S+)\)`)

func followMv(t *testing.T, msg string) {
	t.Helper()
	m := mvCommand.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the message gives no mv command to follow:\n%s", msg)
	}
	if err := os.Rename(m[1], m[2]); err != nil {
		t.Fatalf("following %q: %v", m[0], err)
	}
}

func TestChangedFileIsRefusedUntilTheOperatorAllowsASecondPayout(t *testing.T) {
	x := startSvc(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	file, keys := csvRows(t, dir, "CHG", 4, plainAmount)
	if r := x.batch(t, ctx, file, "", yes()); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.all())
	}
	// The operator edits one amount and runs again.
	file, keys2 := csvRows(t, dir, "CHG", 4, func(i int) string {
		if i == 2 {
			return "99.00"
		}
		return plainAmount(i)
	})
	r := x.batch(t, ctx, file, "", yes())
	if r.code == 0 || !strings.Contains(r.all(), "pass --journal NEWPATH") || !strings.Contains(r.all(), "pass --allow-duplicate as well") {
		t.Fatalf("re-run of a changed file: exit %d, want a refusal naming --journal NEWPATH and --allow-duplicate\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "CHG", keys)

	// Following the advice literally: --journal NEWPATH. The dry run
	// first: it names the changed row and fails.
	o := yes()
	o.Journal = filepath.Join(dir, "new.journal")
	dry := CommandOptions{DryRun: true, Journal: o.Journal}
	r = x.batch(t, ctx, file, "", dry)
	if r.code == 0 || !strings.Contains(r.out, "CHANGED     line 4  £99.00") || !strings.Contains(r.out, "already paid as") ||
		strings.Contains(r.out, "would send  line 4") || !strings.Contains(r.out, "1 CHANGED row(s) would NOT be sent") {
		t.Errorf("dry run of the changed file: exit %d, want the row flagged CHANGED and a non-zero exit\n%s", r.code, r.all())
	}
	// The real run refuses the changed row even with --yes.
	r = x.batch(t, ctx, file, "", o)
	if r.code != cmdutil.ExitNotAccepted {
		t.Errorf("with --journal NEWPATH: exit %d, want %d (the changed row held back)\n%s", r.code, cmdutil.ExitNotAccepted, r.all())
	}
	if !strings.Contains(r.err, "this run sends 0 payout(s)\n") || !strings.Contains(r.err, "CHANGED  line 4  £99.00") {
		t.Errorf("the changed row was not listed as held back:\n%s", r.err)
	}
	x.wantPaidOnce(t, "CHG", keys)

	// The advice says how to pay it anyway; follow it word for word.
	const advice = "to pay a changed row as a second, new payout, run the same command with --allow-duplicate"
	if !strings.Contains(r.out, advice) {
		t.Fatalf("the summary does not say how to send the changed row:\n%s", r.out)
	}
	o.AllowDuplicate = true
	dry.AllowDuplicate = true
	if r := x.batch(t, ctx, file, "", dry); r.code != 0 || !strings.Contains(r.out, "would send  line 4  £99.00") ||
		!strings.Contains(r.out, "would be a second payout (--allow-duplicate)") {
		t.Errorf("dry run with --allow-duplicate: exit %d, want the row listed as a second payout\n%s", r.code, r.all())
	}
	r = x.batch(t, ctx, file, "", o)
	if r.code != 0 {
		t.Fatalf("with --allow-duplicate: exit %d\n%s", r.code, r.all())
	}
	if !strings.Contains(r.err, "this run sends 1 payout(s)") || !strings.Contains(r.err, "send  line 4  £99.00") ||
		!strings.Contains(r.err, "CHANGED: already paid as") {
		t.Errorf("the row to send was not listed before sending:\n%s", r.err)
	}
	// The three unchanged rows once; the edited row's old and new amounts
	// once each (the new amount is a second payout the operator allowed).
	x.wantPaidOnce(t, "CHG", append(keys, keys2[2]))

	// And again, same command: nothing more.
	if r := x.batch(t, ctx, file, "", o); r.code != 0 {
		t.Fatalf("third run: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "CHG", append(keys, keys2[2]))
}

// The QA walkthrough: a one-row file settles, the amount is corrected,
// and the operator reconciles under a new journal. The correction goes to
// the same IBAN under the same reference: it is flagged, not paid.
func TestCorrectedAmountIsFlaggedNotPaidSilently(t *testing.T) {
	x := startSvc(t, nil)
	ctx := context.Background()
	file := writeFileIn(t, "name,iban,reference,amount,currency\nGrace Chen,"+ibanGB+",SAL-NOV-9,500.00,GBP\n")
	if r := x.batch(t, ctx, file, "", yes()); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.all())
	}
	if err := os.WriteFile(file, []byte("name,iban,reference,amount,currency\nGrace Chen,"+ibanGB+",SAL-NOV-9,550.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := yes()
	o.Journal = filepath.Join(filepath.Dir(file), "c2.journal")
	r := x.batch(t, ctx, file, "", CommandOptions{DryRun: true, Journal: o.Journal})
	if r.code == 0 || !strings.Contains(r.out, "CHANGED") || strings.Contains(r.out, "can be paid in full") {
		t.Errorf("dry run: exit %d, want the corrected row flagged CHANGED\n%s", r.code, r.all())
	}
	if r := x.batch(t, ctx, file, "", o); r.code == 0 || !strings.Contains(r.out, "CHANGED, not sent") {
		t.Errorf("real run with --yes: exit %d, want the corrected row refused\n%s", r.code, r.all())
	}
	// Even with the journal gone and a fresh one named, the audit record
	// and the report know the first payout.
	o.Journal = filepath.Join(filepath.Dir(file), "c3.journal")
	if r := x.batch(t, ctx, file, "", o); r.code == 0 {
		t.Errorf("third journal: exit %d, want the corrected row refused\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "SAL-NOV", []string{"SAL-NOV-9 500.00 GBP"})
}

func TestUnreadableJournalAdviceIsSafeToFollow(t *testing.T) {
	damage := map[string]func(t *testing.T, path string){
		"emptied": func(t *testing.T, p string) {
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		},
		"cut in the plan": func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			// Keep the header and the first plan line only.
			lines := strings.SplitAfter(string(b), "\n")
			if err := os.WriteFile(p, []byte(lines[0]+lines[1]), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"damaged in the middle": func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			lines := strings.SplitAfter(string(b), "\n")
			lines[3] = "{garbage\n"
			if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, hurt := range damage {
		t.Run(name, func(t *testing.T) {
			x := startSvc(t, nil)
			ctx := context.Background()
			file, keys := csvRows(t, t.TempDir(), "DMG", 5, plainAmount)
			if r := x.batch(t, ctx, file, "", yes()); r.code != 0 {
				t.Fatalf("first run: exit %d\n%s", r.code, r.all())
			}
			hurt(t, batch.DefaultJournalPath(file))
			r := x.batch(t, ctx, file, "", yes())
			if r.code == 0 {
				t.Fatalf("a damaged journal was used:\n%s", r.all())
			}
			x.wantPaidOnce(t, "DMG", keys)
			followMv(t, r.all())
			r = x.batch(t, ctx, file, "", yes())
			if r.code != 0 {
				t.Fatalf("after moving the journal aside: exit %d\n%s", r.code, r.all())
			}
			if !strings.Contains(r.err, "this run sends 0 payout(s)") || !strings.Contains(r.out, "5 in an earlier run, not sent again") {
				t.Errorf("the run does not say every row was already sent:\n%s", r.all())
			}
			x.wantPaidOnce(t, "DMG", keys)
		})
	}
}

func TestDeletedJournalMidBatchResumesWithTheSameIDs(t *testing.T) {
	x := startSvc(t, nil)
	file, keys := csvRows(t, t.TempDir(), "DEL", 12, plainAmount)
	// The first run, at 20 payouts a second, stops (ctrl+c) once the
	// service holds 5 of them.
	r := x.interrupted(t, file, "DEL", 5)
	if r.code == 0 {
		t.Fatalf("the interrupted run says it finished:\n%s", r.all())
	}
	if got := len(x.paid(t, "DEL")); got == 0 || got >= 12 {
		t.Fatalf("%d rows paid after the interruption; want part of the batch", got)
	}
	if err := os.Remove(batch.DefaultJournalPath(file)); err != nil {
		t.Fatal(err)
	}
	r = x.batch(t, context.Background(), file, "", yes())
	if r.code != 0 {
		t.Fatalf("re-run without the journal: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "DEL", keys)
}

// interrupted runs the batch with --yes at 20 payouts a second and
// stops it (ctrl+c) once the service holds n payouts with the prefix.
func (x *svc) interrupted(t *testing.T, file, prefix string, n int) runResult {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go x.cancelAfter(t, ctx, cancel, prefix, n)
	o := yes()
	o.Rate = 20
	return x.batch(t, ctx, file, "", o)
}

// cancelAfter cancels once the report holds n payouts with the prefix.
func (x *svc) cancelAfter(t *testing.T, ctx context.Context, cancel context.CancelFunc, prefix string, n int) {
	for ctx.Err() == nil {
		txs, err := x.client.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
		if err == nil {
			c := 0
			for _, tx := range txs {
				if strings.HasPrefix(tx.BeneficiaryReference, prefix) {
					c++
				}
			}
			if c >= n {
				cancel()
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSecondRunAtOnceIsStoppedAndNamesTheHolder(t *testing.T) {
	x := startSvc(t, nil)
	file, keys := csvRows(t, t.TempDir(), "TWO", 10, plainAmount)
	first := make(chan runResult, 1)
	o := yes()
	o.Rate = 20
	go func() { first <- x.batch(t, context.Background(), file, "", o) }()
	// The first run is under way once the service holds a payout of it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	x.cancelAfter(t, ctx, func() {}, "TWO", 1)

	r := x.batch(t, context.Background(), file, "", yes())
	if r.code == 0 {
		t.Fatalf("a second run of the same batch ran alongside the first:\n%s", r.all())
	}
	host, _ := os.Hostname()
	if !strings.Contains(r.all(), fmt.Sprintf("locked by pid %d on %s since", os.Getpid(), host)) || !strings.Contains(r.all(), "run the same command again") {
		t.Errorf("the refusal does not say who holds the journal and what to do:\n%s", r.all())
	}
	if fr := <-first; fr.code != 0 {
		t.Fatalf("first run: exit %d\n%s", fr.code, fr.all())
	}
	// Following the advice: the same command again, after the first ended.
	r = x.batch(t, context.Background(), file, "", yes())
	if r.code != 0 {
		t.Fatalf("the same command again: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "TWO", keys)
	b, _ := os.ReadFile(batch.DefaultJournalPath(file))
	if _, err := batch.ReadJournal(batch.DefaultJournalPath(file), mustLoad(t, file)); err != nil {
		t.Errorf("journal unreadable after two runs: %v\n%s", err, b)
	}
}

func TestTwoJournalsOfOneFileAtOnceStillPayOnce(t *testing.T) {
	// Two terminals, each with its own --journal: the journal lock cannot
	// see the other run, the audit record's lock does.
	x := startSvc(t, nil)
	dir := t.TempDir()
	file, keys := csvRows(t, dir, "PAR", 10, plainAmount)
	res := make(chan runResult, 2)
	for i := range 2 {
		o := yes()
		o.Journal = filepath.Join(dir, fmt.Sprintf("j%d", i))
		go func() { res <- x.batch(t, context.Background(), file, "", o) }()
	}
	a, b := <-res, <-res
	// Either run may finish first, or the second may take back the first
	// one's ids from the audit record; what must hold is the report.
	x.wantPaidOnce(t, "PAR", keys)
	for _, r := range []runResult{a, b} {
		if r.code != 0 && r.code != cmdutil.ExitNotAccepted {
			t.Errorf("a run failed (exit %d) rather than finishing or reporting duplicates:\n%s", r.code, r.all())
		}
	}
}

func mustLoad(t *testing.T, path string) *batch.File {
	t.Helper()
	f, err := batch.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNothingIsSentUnconfirmedOffATerminal(t *testing.T) {
	x := startSvc(t, nil) // not a production profile
	file, keys := csvRows(t, t.TempDir(), "CONF", 3, plainAmount)
	r := x.batch(t, context.Background(), file, "n\n", CommandOptions{})
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.all(), "pass --yes") {
		t.Fatalf("`echo n | paydash payout batch`: exit %d, want %d and advice to pass --yes\n%s", r.code, cmdutil.ExitUsage, r.all())
	}
	if got := x.paid(t, "CONF"); len(got) != 0 {
		t.Fatalf("sent without confirmation: %v", got)
	}
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("with --yes: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "CONF", keys)
}

func TestExactDuplicateRowsAreRefusedUnlessAllowed(t *testing.T) {
	x := startSvc(t, nil)
	file := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Ada,"+ibanGB+",DUPROW-1,10.00,GBP\n"+
		"Bob,"+ibanGB+",DUPROW-2,20.00,GBP\n"+
		"Ada L.,"+ibanGB+",dupRow-1 ,10.00,GBP\n") // the same payout typed again
	r := x.batch(t, context.Background(), file, "", yes())
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.all(), "line 4") || !strings.Contains(r.all(), "line 2 is the same payout") || !strings.Contains(r.all(), "--allow-duplicate") {
		t.Fatalf("a file paying one row twice: exit %d\n%s", r.code, r.all())
	}
	if got := x.paid(t, "DUPROW"); len(got) != 0 {
		t.Fatalf("a refused file sent payouts: %v", got)
	}
	o := yes()
	o.AllowDuplicate = true
	if r := x.batch(t, context.Background(), file, "", o); r.code != 0 {
		t.Fatalf("with --allow-duplicate: exit %d\n%s", r.code, r.all())
	}
	if got := x.paid(t, ""); got["DUPROW-1 10.00 GBP"]+got["dupRow-1 10.00 GBP"] != 2 || got["DUPROW-2 20.00 GBP"] != 1 {
		t.Errorf("with --allow-duplicate both rows are paid once each; report: %v", got)
	}
	// The audit record says the second was a duplicate the operator
	// allowed.
	log, _ := payout.Open(payout.DefaultPath(filepath.Join(x.env["XDG_STATE_HOME"], "paydash"), "default"), "default", nil)
	entries, err := log.Entries()
	if err != nil {
		t.Fatal(err)
	}
	allowed := 0
	for _, a := range payout.Attempts(entries) {
		if a.AllowedDuplicate {
			allowed++
		}
	}
	if allowed != 1 {
		t.Errorf("%d attempts marked as allowed duplicates, want 1: %+v", allowed, entries)
	}
}

func TestRowMatchingAnEarlierPayoutIsNotSent(t *testing.T) {
	x := startSvc(t, nil)
	// Paid yesterday from the web console: only the service's report
	// knows it.
	earlier := &api.PayoutRequest{TransactionID: "6f1c1f3e-8a65-4c57-a1f5-0d9d3a6b7c11", BeneficiaryName: "Ada", BeneficiaryIBAN: ibanGB,
		BeneficiaryReference: "EARLY-1", AmountInMinor: 1000, Currency: "GBP", ContextCode: api.ContextCodeWithdrawal}
	if err := x.client.CreatePayout(context.Background(), earlier); err != nil {
		t.Fatal(err)
	}
	file := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Ada,"+ibanGB+",EARLY-1,10.00,GBP\n"+
		"Bob,"+ibanGB+",EARLY-2,20.00,GBP\n")
	dry := x.batch(t, context.Background(), file, "", CommandOptions{DryRun: true})
	if dry.code != cmdutil.ExitNotAccepted || !strings.Contains(dry.out, "DUPLICATE   line 2") || !strings.Contains(dry.out, earlier.TransactionID) {
		t.Errorf("dry run does not show the duplicate with its id: exit %d\n%s", dry.code, dry.all())
	}
	// Funds are ample: the verdict says what holds the row back, not that
	// the batch cannot be paid.
	if strings.Contains(dry.out, "can NOT be paid in full") || !strings.Contains(dry.out, "funds suffice, but 1 DUPLICATE row(s) would NOT be sent") {
		t.Errorf("dry run's verdict misnames a duplicate as a funding problem:\n%s", dry.out)
	}
	r := x.batch(t, context.Background(), file, "", yes())
	if r.code != cmdutil.ExitNotAccepted {
		t.Errorf("exit %d, want %d (a row was refused as a duplicate)", r.code, cmdutil.ExitNotAccepted)
	}
	if !strings.Contains(r.all(), earlier.TransactionID) || !strings.Contains(r.all(), "service report") || !strings.Contains(r.all(), "--allow-duplicate") {
		t.Errorf("the duplicate is not shown with its id, source and the way to pay it anyway:\n%s", r.all())
	}
	x.wantPaidOnce(t, "EARLY", []string{"EARLY-1 10.00 GBP", "EARLY-2 20.00 GBP"})
	// Re-running pays nothing more, and says so without a dangling list.
	r = x.batch(t, context.Background(), file, "", yes())
	if !strings.Contains(r.err, "this run sends 0 payout(s)\n") {
		t.Errorf("a run sending nothing is misworded:\n%s", r.err)
	}
	x.wantPaidOnce(t, "EARLY", []string{"EARLY-1 10.00 GBP", "EARLY-2 20.00 GBP"})
}

func TestJournalAndAuditRecordBothLostStillPayOnce(t *testing.T) {
	x := startSvc(t, nil)
	file, keys := csvRows(t, t.TempDir(), "LOST", 4, plainAmount)
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.all())
	}
	os.Remove(batch.DefaultJournalPath(file))
	os.RemoveAll(filepath.Join(x.env["XDG_STATE_HOME"], "paydash", "audit"))
	r := x.batch(t, context.Background(), file, "", yes())
	if !strings.Contains(r.all(), "duplicate (not sent) 4") {
		t.Errorf("the rows found in the service's report are not reported as duplicates:\n%s", r.all())
	}
	x.wantPaidOnce(t, "LOST", keys)
}

func TestDryRunTellsTheTruth(t *testing.T) {
	x := startSvc(t, map[string]int64{"GBP": 770_000_000})
	file := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Big,"+ibanGB+",DRY-1,5000000.00,GBP\n"+
		"Bigger,"+ibanGB+",DRY-2,5000000.00,GBP\n"+
		"Dollar,"+ibanGB+",DRY-3,77.70,USD\n")
	r := x.batch(t, context.Background(), file, "", CommandOptions{DryRun: true})
	if r.code != cmdutil.ExitNotAccepted {
		t.Errorf("dry run of an unpayable batch: exit %d, want %d", r.code, cmdutil.ExitNotAccepted)
	}
	for _, want := range []string{"can NOT be paid in full", "would send  line 2", "would send  line 3", "would send  line 4",
		"£10,000,000.00 to send EXCEEDS the available £7,700,000.00", "NO USD payout account"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, r.out)
		}
	}
	if got := x.paid(t, "DRY"); len(got) != 0 {
		t.Errorf("a dry run sent payouts: %v", got)
	}
	ok := writeFileIn(t, "name,iban,reference,amount,currency\nSmall,"+ibanGB+",DRY-4,1.00,GBP\n")
	if r := x.batch(t, context.Background(), ok, "", CommandOptions{DryRun: true}); r.code != 0 || !strings.Contains(r.out, "can be paid in full") {
		t.Errorf("dry run of a payable batch: exit %d\n%s", r.code, r.all())
	}
}

func TestInterruptedRunAdviceIsSafeToFollow(t *testing.T) {
	x := startSvc(t, nil)
	file, keys := csvRows(t, t.TempDir(), "INT", 12, plainAmount)
	r := x.interrupted(t, file, "INT", 4)
	if !strings.Contains(r.all(), "run the same command again to resume") {
		t.Fatalf("ctrl+c: exit %d, no advice to resume:\n%s", r.code, r.all())
	}
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("the same command again: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "INT", keys)
}

func TestDamagedAuditRecordAdviceIsSafeToFollow(t *testing.T) {
	x := startSvc(t, nil)
	dir := t.TempDir()
	file, keys := csvRows(t, dir, "AUD", 4, plainAmount)
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.all())
	}
	// The journal is lost and the audit record damaged in the middle.
	os.Remove(batch.DefaultJournalPath(file))
	rec := payout.DefaultPath(filepath.Join(x.env["XDG_STATE_HOME"], "paydash"), "default")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = "{garbage\n"
	os.WriteFile(rec, []byte(strings.Join(lines, "")), 0o600)
	r := x.batch(t, context.Background(), file, "", yes())
	if r.code == 0 || !strings.Contains(r.all(), "move the file aside to start a new record") {
		t.Fatalf("a damaged audit record was used: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "AUD", keys)
	// Word for word: move it aside, run again.
	if err := os.Rename(rec, rec+".damaged"); err != nil {
		t.Fatal(err)
	}
	r = x.batch(t, context.Background(), file, "", yes())
	if !strings.Contains(r.all(), "duplicate (not sent) 4") {
		t.Errorf("the rows already paid are not refused from the report:\n%s", r.all())
	}
	x.wantPaidOnce(t, "AUD", keys)
}

// Two rows of one file to one payee under one reference (salary and
// expenses) are not an edit of each other: a run killed after the first
// resumes and sends the second.
func TestTwoRowsToOnePayeeAreNotChangedRows(t *testing.T) {
	x := startSvc(t, nil)
	file := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Ada,"+ibanGB+",NOV-ADA,100.00,GBP\n"+
		"Ada,"+ibanGB+",NOV-ADA,25.50,GBP\n")
	// The first row only, as if the run stopped after it: sent from a
	// file holding just that line, under this path.
	full, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte("name,iban,reference,amount,currency\nAda,"+ibanGB+",NOV-ADA,100.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("first row: exit %d\n%s", r.code, r.all())
	}
	if err := os.WriteFile(file, full, 0o600); err != nil {
		t.Fatal(err)
	}
	o := yes()
	o.Journal = filepath.Join(filepath.Dir(file), "full.journal")
	r := x.batch(t, context.Background(), file, "", o)
	if r.code != 0 || strings.Contains(r.all(), "CHANGED") {
		t.Fatalf("the second row to the same payee: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "NOV-ADA", []string{"NOV-ADA 100.00 GBP", "NOV-ADA 25.50 GBP"})
}

// TestUnpayableBatchIsRefusedBeforeAnythingIsSent: a batch whose rows one
// account cannot pay, or that has no account for, is refused before any
// row goes (sent anyway, the service pays rows in file order until the
// money runs out and rejects the rest). The advice, followed literally
// (fund the account, run the same command again), pays each row once.
func TestUnpayableBatchIsRefusedBeforeAnythingIsSent(t *testing.T) {
	x := startSvc(t, map[string]int64{"GBP": 770_000_000})
	file := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Big,"+ibanGB+",UNF-1,5000000.00,GBP\n"+
		"Bigger,"+ibanGB+",UNF-2,5000000.00,GBP\n")
	r := x.batch(t, context.Background(), file, "", CommandOptions{Yes: true})
	if r.code != cmdutil.ExitNotAccepted || !strings.Contains(r.all(), "nothing was sent") ||
		!strings.Contains(r.all(), "£10,000,000.00 to send EXCEEDS the available £7,700,000.00") || !strings.Contains(r.all(), fundsAdvice) {
		t.Fatalf("unfunded batch: exit %d, want %d with the shortfall and the advice\n%s", r.code, cmdutil.ExitNotAccepted, r.all())
	}
	if got := x.paid(t, "UNF"); len(got) != 0 {
		t.Fatalf("an unfunded batch sent payouts: %v", got)
	}

	// The advice: fund the account, then the same command again.
	if _, err := x.srv.Fund("GBP", 300_000_000, "Treasury Top Up"); err != nil {
		t.Fatal(err)
	}
	if r := x.batch(t, context.Background(), file, "", CommandOptions{Yes: true}); r.code != 0 {
		t.Fatalf("after funding: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "UNF", []string{"UNF-1 5000000.00 GBP", "UNF-2 5000000.00 GBP"})

	// A currency the profile has no account for stops the whole batch too.
	usd := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Pound,"+ibanGB+",USD-1,1.00,GBP\n"+
		"Dollar,"+ibanGB+",USD-2,77.70,USD\n")
	r = x.batch(t, context.Background(), usd, "", CommandOptions{Yes: true})
	if r.code != cmdutil.ExitNotAccepted || !strings.Contains(r.all(), "NO USD payout account") {
		t.Fatalf("batch with a USD row and no USD account: exit %d\n%s", r.code, r.all())
	}
	if got := x.paid(t, "USD"); len(got) != 0 {
		t.Fatalf("a batch with an unpayable currency sent payouts: %v", got)
	}
	// The other way out, literally: that row taken out of the same file,
	// the same command again.
	if err := os.WriteFile(usd, []byte("name,iban,reference,amount,currency\nPound,"+ibanGB+",USD-1,1.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := x.batch(t, context.Background(), usd, "", CommandOptions{Yes: true}); r.code != 0 {
		t.Fatalf("the file without the USD row: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "USD", []string{"USD-1 1.00 GBP"})
}

// TestDryRunShowsDuplicatesReleasedByAllowDuplicate: with
// --allow-duplicate a dry run lists each row matching an earlier payout
// as a second payout (text and JSON), as the confirmation does, so
// "check with --dry-run, then --yes" never pays one twice unseen.
func TestDryRunShowsDuplicatesReleasedByAllowDuplicate(t *testing.T) {
	x := startSvc(t, nil)
	first := writeFileIn(t, "name,iban,reference,amount,currency\nAda Lovelace,"+ibanGB+",REL-1,10.00,GBP\n")
	if r := x.batch(t, context.Background(), first, "", CommandOptions{Yes: true}); r.code != 0 {
		t.Fatalf("first batch: exit %d\n%s", r.code, r.all())
	}
	again := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Ada Lovelace,"+ibanGB+",REL-1,10.00,GBP\n"+
		"Grace Hopper,"+ibanGB+",REL-2,20.00,GBP\n")
	r := x.batch(t, context.Background(), again, "", CommandOptions{DryRun: true, AllowDuplicate: true})
	if !strings.Contains(r.out, "DUPLICATE of") || !strings.Contains(r.out, "would be a second payout (--allow-duplicate)") {
		t.Fatalf("dry run with --allow-duplicate does not show the duplicate:\n%s", r.all())
	}
	r = x.batch(t, context.Background(), again, "", CommandOptions{DryRun: true, AllowDuplicate: true, JSON: true})
	var sum batch.Summary
	if err := json.Unmarshal([]byte(r.out), &sum); err != nil {
		t.Fatalf("JSON dry run: %v\n%s", err, r.out)
	}
	if len(sum.Rows) != 2 || sum.Rows[0].DuplicateOf == nil || sum.Rows[1].DuplicateOf != nil {
		t.Fatalf("JSON dry run: want duplicate_of on line 2 only, got %+v", sum.Rows)
	}
	x.wantPaidOnce(t, "REL", []string{"REL-1 10.00 GBP"})

	// A row repeated inside the file is marked too, in the dry run and
	// in the listing before the real run sends.
	repeated := writeFileIn(t, "name,iban,reference,amount,currency\n"+
		"Grace Hopper,"+ibanGB+",REL-3,30.00,GBP\n"+
		"Grace Hopper,"+ibanGB+",REL-3,30.00,GBP\n")
	r = x.batch(t, context.Background(), repeated, "", CommandOptions{DryRun: true, AllowDuplicate: true})
	if !strings.Contains(r.out, "REPEAT of line 2 of this file; would be a second payout") {
		t.Fatalf("dry run does not mark the repeated row:\n%s", r.all())
	}
	r = x.batch(t, context.Background(), repeated, "", CommandOptions{Yes: true, AllowDuplicate: true})
	if r.code != 0 || !strings.Contains(r.err, "REPEAT of line 2 of this file: a second payout") {
		t.Fatalf("real run: exit %d, the listing does not mark the repeated row:\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "REL", []string{"REL-1 10.00 GBP", "REL-3 30.00 GBP", "REL-3 30.00 GBP"})
}

// TestRowWithAnotherPayoutsIDIsRefused: a row whose transaction_id cell
// names an earlier, different payout would never be paid (the service
// creates nothing for an id it has seen) yet looked sent, with the other
// payout's outcome. It is a bad row: nothing is sent, and the advice
// (leave the cell empty, run again) pays it once.
func TestRowWithAnotherPayoutsIDIsRefused(t *testing.T) {
	x := startSvc(t, nil)
	first := writeFileIn(t, "name,iban,reference,amount,currency\nAlice Smith,"+ibanGB+",TID-A,12.34,GBP\n")
	if r := x.batch(t, context.Background(), first, "", CommandOptions{Yes: true}); r.code != 0 {
		t.Fatalf("first batch: exit %d\n%s", r.code, r.all())
	}
	ids := x.auditIDs(t)
	if len(ids) != 1 {
		t.Fatalf("audit record ids: %v", ids)
	}
	const head = "name,iban,reference,amount,currency,transaction_id\n"
	file := writeFileIn(t, head+"Tid Test,"+ibanGB+",TID-1,7.00,GBP,"+ids[0]+"\n")
	for _, o := range []CommandOptions{{DryRun: true}, {Yes: true}} {
		r := x.batch(t, context.Background(), file, "", o)
		if r.code != cmdutil.ExitUsage || !strings.Contains(r.all(), "was already used on") || !strings.Contains(r.all(), "Leave the cell empty") {
			t.Fatalf("row with another payout's id (dry run %v): exit %d, want %d and the clash\n%s", o.DryRun, r.code, cmdutil.ExitUsage, r.all())
		}
	}
	x.wantPaidOnce(t, "TID", []string{"TID-A 12.34 GBP"})

	// However old the payout is: outside the duplicate window, and made
	// from another machine (this audit record gone), its id is found in
	// the service's report (last month's export reused as a file).
	old := writeFileIn(t, head+"Tid Old,"+ibanGB+",TID-2,8.00,GBP,"+ids[0]+"\n")
	records, _ := filepath.Glob(filepath.Join(x.env["XDG_STATE_HOME"], "paydash", "audit", "*"))
	for _, f := range records {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	r := x.batch(t, context.Background(), old, "", CommandOptions{Yes: true, DuplicateWindow: time.Nanosecond})
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.all(), "was already used on") {
		t.Fatalf("an id from outside the duplicate window: exit %d, want %d\n%s", r.code, cmdutil.ExitUsage, r.all())
	}
	x.wantPaidOnce(t, "TID", []string{"TID-A 12.34 GBP"})

	// The advice, literally: the cell left empty, the same command again.
	if err := os.WriteFile(file, []byte(head+"Tid Test,"+ibanGB+",TID-1,7.00,GBP,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := x.batch(t, context.Background(), file, "", CommandOptions{Yes: true}); r.code != 0 {
		t.Fatalf("after emptying the cell: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "TID", []string{"TID-A 12.34 GBP", "TID-1 7.00 GBP"})
}
