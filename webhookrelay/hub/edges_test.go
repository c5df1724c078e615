package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// post sends body as JSON with name's token and returns the status and
// the refusal's reason and detail.
func (e *env) post(name, path string, body any) (int, hubapi.Problem) {
	e.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		e.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.tokens[name])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var p hubapi.Problem
	_ = json.Unmarshal(data, &p)
	return resp.StatusCode, p
}

func (e *env) storeSize() int64 {
	e.t.Helper()
	st, err := os.Stat(filepath.Join(e.storeDir, "approvals.db"))
	if err != nil {
		e.t.Fatal(err)
	}
	return st.Size()
}

// A string field a client sends is bounded, and the refusal names it:
// a batch's file name (copied into every row) of 101 KB once grew the
// store by 4 MB.
func TestEveryStringFieldIsBoundedAndNamed(t *testing.T) {
	e := startEnv(t, opts{})
	before := e.storeSize()
	huge := strings.Repeat("x", 101<<10)
	rows := make([]hubapi.BatchRow, 40)
	for i := range rows {
		rows[i] = row(i+2, "BOUND-"+strings.Repeat("r", 3)+string(rune('a'+i%26))+string(rune('a'+i/26)), payeeIBAN, 1_00)
	}
	b := batchSub("ok.csv", rows...)
	b.File = huge
	status, p := e.post("ada", hubapi.PathBatches, b)
	if status != http.StatusUnprocessableEntity || p.Reason != hub.ReasonFieldInvalid || !strings.HasPrefix(p.Detail, "file:") {
		t.Fatalf("a 101 KB file name: %d %+v", status, p)
	}
	b = batchSub("ok.csv", rows...)
	b.SHA256 = huge[:300]
	if status, p := e.post("ada", hubapi.PathBatches, b); status != http.StatusUnprocessableEntity || !strings.HasPrefix(p.Detail, "sha256:") {
		t.Fatalf("a 300-character sha256: %d %+v", status, p)
	}
	// A payout's own fields, and a rejection's reason: each named.
	s := sub("BOUND-X", payeeIBAN, 1_00)
	s.ContextCode = huge[:1000]
	if status, p := e.post("ada", hubapi.PathPayouts, s); status != http.StatusUnprocessableEntity || !strings.Contains(p.Detail, "context_code") {
		t.Fatalf("a 1,000-character context code: %d %+v", status, p)
	}
	if status, p := e.post("cy", hubapi.PathApprovals+"/apr-none/reject", hubapi.RejectBody{Reason: huge[:5000]}); status != http.StatusUnprocessableEntity || !strings.HasPrefix(p.Detail, "reason:") {
		t.Fatalf("a 5,000-character reason: %d %+v", status, p)
	}
	// A body over the endpoint's limit is 413, not a JSON error.
	s = sub("BOUND-Y", payeeIBAN, 1_00)
	s.BeneficiaryName = strings.Repeat("n", 70<<10)
	if status, p := e.post("ada", hubapi.PathPayouts, s); status != http.StatusRequestEntityTooLarge || p.Reason != "body_too_large" {
		t.Fatalf("a 70 KB payout: %d %+v", status, p)
	}
	if grew := e.storeSize() - before; grew > 0 {
		t.Fatalf("refused requests grew the store by %d bytes", grew)
	}
}

// A batch whose rows repeat one transaction id is a 4xx naming the
// rows, never the store's 500.
func TestABatchRepeatingATransactionIDNamesTheRows(t *testing.T) {
	e := startEnv(t, opts{})
	r2, r5 := row(2, "DUPTX-1", payeeIBAN, 1_00), row(5, "DUPTX-2", otherIBAN, 2_00)
	r2.TransactionID = "5b0a3bf6-58a4-4a1c-8c5b-3f1f4a8f4e01"
	r5.TransactionID = r2.TransactionID
	status, p := e.post("ada", hubapi.PathBatches, batchSub("dup.csv", r2, row(3, "DUPTX-3", payeeIBAN, 3_00), r5))
	if status != http.StatusUnprocessableEntity || !strings.Contains(p.Detail, "line 5") || !strings.Contains(p.Detail, "line 2") {
		t.Fatalf("rows repeating a transaction id: %d %+v", status, p)
	}
	if n := e.reportCount("DUPTX-1") + e.reportCount("DUPTX-3"); n != 0 {
		t.Fatalf("%d payouts sent", n)
	}
}

// A payee's name is the requester's text: posted to a chat webhook raw,
// "<!channel>" alerts everyone and "<url|Approve>" is a disguised link
// under paydash's name. The notify text carries neither.
func TestNotifyTextIsInertInChatMarkup(t *testing.T) {
	e := startEnv(t, opts{})
	s := sub("NOTE-1", payeeIBAN, 5000_00)
	s.BeneficiaryName = "Evil & Co <!channel> @here"
	s.BeneficiaryReference = "<https://evil.example/approve|Approve in paydash>"
	if _, err := e.as("ada").Submit(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	var text string
	select {
	case text = <-e.notes:
	case <-time.After(notifyWait):
		t.Fatal("no notification")
	}
	for _, raw := range []string{"<", ">", "@here", "@channel", " & "} {
		if strings.Contains(text, raw) {
			t.Errorf("notify text %q carries %q raw", text, raw)
		}
	}
	if !strings.Contains(text, "Evil &amp; Co &lt;!channel&gt;") || !strings.Contains(text, "&lt;https://evil.example/approve|Approve in paydash&gt;") {
		t.Errorf("notify text %q does not keep the words, escaped", text)
	}
}

// The notify client follows no redirect: a notify URL that redirects
// elsewhere gets the one post, the other host none.
func TestNotifyFollowsNoRedirect(t *testing.T) {
	e := startEnv(t, opts{})
	elsewhere := make(chan string, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		elsewhere <- string(b)
	}))
	defer other.Close()
	asked := make(chan struct{}, 4)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	e.close()
	e.open(redirecting.URL)
	if _, err := e.as("ada").Submit(context.Background(), sub("REDIR-1", payeeIBAN, 5000_00)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(notifyWait):
		t.Fatal("the notify URL was not posted to")
	}
	e.close() // waits for the notifier
	select {
	case b := <-elsewhere:
		t.Fatalf("the redirect was followed: the other host got %s", b)
	default:
	}
}

// The relay asks the hub who may write a resend's answer into the
// attempt log: the request role, never a view-only user or the relay's
// shared token.
func TestOnlyRequestersWriteToTheRelay(t *testing.T) {
	e := startEnv(t, opts{})
	for tok, want := range map[string]bool{e.tokens["ada"]: true, e.tokens["bob"]: true, e.tokens["vic"]: false, e.tokens["cy"]: false, sharedTok: false, "": false} {
		if got := e.hub.WriterAllowed(tok); got != want {
			t.Errorf("WriterAllowed(%q) = %v, want %v", tok, got, want)
		}
	}
}
