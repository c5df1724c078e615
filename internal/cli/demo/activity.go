package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
)

// activity keeps the demo alive: now and then a customer's bank transfer
// tops up an account, another operator sends a payout, and once in a
// while a payout fails, so every state and event kind shows up within a
// minute or two of watching.
type activity struct {
	env *Env
	rng *rand.Rand
	n   int
}

func newActivity(env *Env, seed int64) *activity {
	// Demo traffic, not secrets: a seeded, non-cryptographic source is right.
	return &activity{env: env, rng: rand.New(rand.NewPCG(uint64(seed), uint64(time.Now().UnixNano())))} //nolint:gosec // see above
}

type payee struct {
	name, iban, currency string
}

// Payees of the other operators; every IBAN has valid check digits.
var payees = []payee{
	{"Northwind Traders Ltd", "GB82WEST12345698765432", "GBP"},
	{"Ada Lovelace", "GB33BUKB20201555555555", "GBP"},
	{"Grace Hopper", "GB94BARC10201530093459", "GBP"},
	{"Müller & Söhne GmbH", "DE89370400440532013000", "EUR"},
	{"Société Générale Client", "FR1420041010050500013M02606", "EUR"},
	{"Van Dijk Logistiek BV", "NL91ABNA0417164300", "EUR"},
}

var payers = []struct{ name, currency string }{
	{"Acme Retail plc", "GBP"}, {"Globex Europe SA", "EUR"}, {"Initech UK Ltd", "GBP"}, {"Umbrella Holdings BV", "EUR"},
}

func (a *activity) run(ctx context.Context) {
	wait := 6 * time.Second
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		a.step(ctx)
		wait = time.Duration(8+a.rng.IntN(12)) * time.Second
	}
}

// step does one thing. The third step is always a failing payout, so a
// person watching sees a failure early; after that failures are rare.
func (a *activity) step(ctx context.Context) {
	a.n++
	switch r := a.rng.IntN(100); {
	case a.n == 3 || r < 10:
		a.payout(ctx, "FAIL:account closed")
	case r < 45:
		p := payers[a.rng.IntN(len(payers))]
		amount := int64(50_000 + a.rng.IntN(500_000)) // 500.00 to 5,500.00
		_, _ = a.env.Sandbox.Fund(p.currency, amount, p.name)
	default:
		a.payout(ctx, fmt.Sprintf("OPS-%06d", a.rng.IntN(1_000_000)))
	}
}

func (a *activity) payout(ctx context.Context, reference string) {
	p := payees[a.rng.IntN(len(payees))]
	req := &api.PayoutRequest{
		TransactionID: uuid.NewString(), BeneficiaryName: p.name, BeneficiaryIBAN: p.iban,
		BeneficiaryReference: reference, Currency: p.currency,
		AmountInMinor: int64(500 + a.rng.IntN(25_000)), // 5.00 to 255.00
		ContextCode:   api.ContextCodeWithdrawal,
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = a.env.Client.CreatePayout(ctx, req) // background colour: a failure here only means less to watch
}
