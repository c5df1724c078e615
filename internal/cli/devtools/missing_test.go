package devtools

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
)

// sendPayout sends a payout to the bench's sandbox the way paydash does:
// recorded in the profile's audit record first, then sent.
func sendPayout(t *testing.T, s *cmdutil.Streams, p *config.Profile, client *api.Client, ref string) string {
	t.Helper()
	log, err := cmdutil.AuditLog(s, p)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	e := payout.Entry{Profile: p.Name, Source: payout.SourceCreate, TransactionID: id, Name: "Ada Lovelace",
		IBAN: "GB33BUKB20201555555555", Reference: ref, AmountInMinor: 7_00, Currency: "GBP"}
	if _, err := log.Reserve(context.Background(), e, 0, true); err != nil {
		t.Fatal(err)
	}
	if err := client.CreatePayout(context.Background(), &api.PayoutRequest{TransactionID: id, BeneficiaryName: e.Name,
		BeneficiaryIBAN: e.IBAN, BeneficiaryReference: ref, Currency: "GBP", AmountInMinor: 7_00, ContextCode: api.ContextCodeWithdrawal}); err != nil {
		t.Fatal(err)
	}
	if err := log.Outcome(id, payout.OutcomeAccepted, ""); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestMissingListsLatePayoutsAndClearsThoseThatCame: with webhook_late
// 1s, a payout held at authorised is missing (the report says
// authorised), one whose settled webhook came after the deadline is not
// missing but said to have come late, and a payout the relay alone saw
// authorised is missing too; exit status 3, and --json carries them.
func TestMissingListsLatePayoutsAndClearsThoseThatCame(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK })
	info := b.sb.Info()
	state := t.TempDir()
	s, out, errb := streams()
	s.Getenv = func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	p := &config.Profile{Name: "dev", AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: config.Secret(info.ClientSecret), SigningKeyID: "k1", SigningKeyFile: testkey.Path(),
		WebhookLate: config.WebhookLate{All: time.Second}}
	client, err := cmdutil.Client(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	held := sendPayout(t, s, p, client, "HELD")
	cameLate := sendPayout(t, s, p, client, "LATE")
	onTime := sendPayout(t, s, p, client, "ONTIME")
	if _, err := Trigger(context.Background(), b.sb.URL, api.EventPayoutSettled, &TriggerOptions{PayoutID: onTime}); err != nil {
		t.Fatal(err)
	}
	relayOnly, err := Trigger(context.Background(), b.sb.URL, api.EventPayoutAuthorised, &TriggerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond) // past webhook_late for all of them
	if _, err := Trigger(context.Background(), b.sb.URL, api.EventPayoutSettled, &TriggerOptions{PayoutID: cameLate}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "every webhook at the relay", func() bool { return len(b.handler.deliveries()) == 6 })

	rows, arrived, err := FindMissing(context.Background(), s, p, b.history(), time.Now(), 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != held || rows[1].ID != relayOnly.PayoutID {
		t.Fatalf("missing %+v, want %s then %s", rows, held, relayOnly.PayoutID)
	}
	if r := rows[0]; !r.Late || r.LateBy <= 0 || r.LastSeen != api.StateAuthorised || r.Report != api.StateAuthorised || r.Currency != "GBP" || r.Source != "sent" {
		t.Errorf("held payout row %+v", r)
	}
	if r := rows[1]; r.Source != "authorised" || r.Report != "" {
		t.Errorf("relay-only row %+v", r)
	}
	if len(arrived) != 1 || arrived[0].ID != cameLate || !arrived[0].ArrivedLate || arrived[0].LateBy <= 0 {
		t.Fatalf("arrived late %+v", arrived)
	}

	err = printMissing(s, rows, arrived, false)
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted {
		t.Fatalf("exit %d, want 3", cmdutil.ExitCode(err))
	}
	for _, want := range []string{held, "payout_settled, payout_failed or payout_rejected", "7.00 GBP", "authorised"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "payout "+cameLate+": payout_settled came ") {
		t.Errorf("stderr lacks the late arrival:\n%s", errb.String())
	}
	s2, out2, _ := streams()
	_ = printMissing(s2, rows, nil, true)
	var list []MissingRow
	if err := json.Unmarshal([]byte(out2.String()), &list); err != nil || len(list) != 2 || list[0].LateByText == "" {
		t.Fatalf("--json %q: %v", out2.String(), err)
	}
	// Nothing missing: exit 0.
	s3, _, _ := streams()
	if err := printMissing(s3, nil, nil, false); err != nil {
		t.Fatalf("none missing: %v", err)
	}
}
