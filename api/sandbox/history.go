package sandbox

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
)

// History shape. A merchant pays a few hundred recurring beneficiaries per
// currency, most payouts settle within minutes, about 1.5% fail, and the
// accounts are topped up whenever they run low (and now and then anyway).
const (
	beneficiaryPool   = 500
	lowWaterMinor     = 5_000_000 // 50,000.00: below this the next record is a top-up
	failedPerThousand = 15
	gbpPercent        = 70
	historySeedStream = 0x7061796461736821 // "paydash!": the PCG stream
)

var (
	firstNames = []string{"Olivia", "Amelia", "Isla", "Ava", "Mia", "Ivy", "Lily", "Freya", "Grace", "Sophia",
		"Noah", "Oliver", "George", "Arthur", "Leo", "Harry", "Oscar", "Archie", "Henry", "Theo",
		"Liam", "Emma", "Lucas", "Hannah", "Mateo", "Lea", "Jonas", "Chloe", "Luca", "Sofia",
		"Aisha", "Mohammed", "Priya", "Arjun", "Wei", "Mei", "Kofi", "Amara", "Diego", "Ines"}
	lastNames = []string{"Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies", "Patel", "Wright",
		"Walker", "Evans", "Thomas", "Roberts", "Green", "Hughes", "Clarke", "Murphy", "Kelly", "Byrne",
		"Muller", "Schmidt", "Dubois", "Martin", "de Vries", "Jansen", "Garcia", "Fernandez", "Rossi", "Kowalski",
		"Nowak", "Silva", "Novak", "Peeters", "Janssens", "Kazlauskas", "Gruber", "Huber", "Khan", "Okafor"}
	companies = []string{"Northwind Traders Ltd", "Blue Harbour Logistics", "Kestrel Design Studio", "Greenleaf Catering",
		"Atlas Freight GmbH", "Brightside Media Ltd", "Copperfield Consulting", "Lumen Software BV",
		"Riverside Plumbing", "Sunrise Bakery", "Oakridge Builders Ltd", "Meridian Travel SL",
		"Nordlicht Elektro GmbH", "Cobalt Analytics Ltd", "Helix Labs SAS", "Maple and Stone Interiors"}
	funders = []string{"Paydash Sandbox Ltd Treasury", "Paydash Sandbox Ltd Operating", "Sandbox Holdings Ltd"}
)

// beneficiary is a recurring payee of the seeded history.
type beneficiary struct{ name, iban string }

// generateHistory returns the opening-balance fundings and then
// o.History records spread over the o.HistoryDays before now, oldest
// first, deterministically from o.HistorySeed and now. It leaves each
// account's balances equal to its fundings minus its settled payouts, and
// never lets a payout overdraw.
func generateHistory(o Options, now time.Time, accts []*account) []txn {
	txns := seedRecords(o, now, accts)
	for i := range txns {
		t := &txns[i]
		t.plain = plainStrings(t.id, t.name, t.iban, t.ref, t.context)
	}
	return txns
}

func seedRecords(o Options, now time.Time, accts []*account) []txn {
	rng := rand.New(rand.NewPCG(uint64(o.HistorySeed), historySeedStream))
	const res = 100 * time.Nanosecond
	end := now.Add(-10 * time.Minute).UTC().Truncate(res).UnixNano()
	start := now.Add(-time.Duration(o.HistoryDays) * 24 * time.Hour).UTC().Truncate(res).UnixNano()
	txns := make([]txn, 0, o.History+len(accts))

	for i, a := range accts {
		if amt := o.InitialFunds[a.Currency]; amt > 0 {
			txns = append(txns, txn{id: seededUUID(rng), kind: kindFundingTxn, status: stSettled, acct: uint8(i),
				settled: start, amount: amt, name: MerchantAccountName, iban: payerIBAN(rng, a.Currency),
				ref: "OPENING BALANCE"})
			a.current += amt
			a.available += amt
		}
	}
	if o.History == 0 {
		return txns
	}
	pools := make([][]beneficiary, len(accts))
	for i, a := range accts {
		pools[i] = make([]beneficiary, beneficiaryPool)
		for j := range pools[i] {
			pools[i][j] = beneficiary{name: personOrCompany(rng), iban: payerIBAN(rng, a.Currency)}
		}
	}
	step := max((end-start)/int64(o.History), 1)
	for n := 0; n < o.History; n++ {
		at := start + step*int64(n) + rng.Int64N(step)
		at -= at % int64(res)
		ai := 0
		if rng.IntN(100) >= gbpPercent {
			ai = 1 % len(accts)
		}
		a := accts[ai]
		amount := payoutAmount(rng)
		if a.current < lowWaterMinor || a.current < amount || rng.IntN(100) < 3 {
			t := txn{id: seededUUID(rng), kind: kindFundingTxn, status: stSettled, acct: uint8(ai), settled: at,
				amount: int64(20+rng.IntN(231)) * 100_000, name: pick(rng, funders), iban: payerIBAN(rng, a.Currency)}
			t.ref = "TOP-UP " + time.Unix(0, at).UTC().Format("20060102")
			a.current += t.amount
			a.available += t.amount
			txns = append(txns, t)
			continue
		}
		b := pools[ai][rng.IntN(rng.IntN(beneficiaryPool)+1)] // skewed: some payees recur often
		t := txn{id: seededUUID(rng), kind: kindPayoutTxn, acct: uint8(ai), amount: amount, name: b.name, iban: b.iban,
			ref: reference(rng), context: api.ContextCodeWithdrawal, authorised: at}
		t.submitted = at + int64(1+rng.IntN(30))*int64(time.Second) + int64(rng.IntN(10_000_000))*100
		if rng.IntN(1000) < failedPerThousand {
			t.status = stFailed
			if rng.IntN(2) == 0 {
				t.submitted = 0 // failed before submission
			}
		} else {
			t.status = stSettled
			t.settled = t.submitted + int64(1+rng.IntN(300))*int64(time.Second) + int64(rng.IntN(10_000_000))*100
			a.current -= amount
			a.available -= amount
		}
		txns = append(txns, t)
	}
	return txns
}

// payoutAmount: mostly tens and hundreds, some thousands, a few large;
// a quarter are whole units.
func payoutAmount(r *rand.Rand) int64 {
	var amt int64
	switch p := r.IntN(100); {
	case p < 40:
		amt = 1_000 + r.Int64N(9_000)
	case p < 75:
		amt = 10_000 + r.Int64N(90_000)
	case p < 95:
		amt = 100_000 + r.Int64N(900_000)
	default:
		amt = 1_000_000 + r.Int64N(4_000_000)
	}
	if r.IntN(4) == 0 {
		amt -= amt % 100
	}
	return amt
}

func personOrCompany(r *rand.Rand) string {
	if r.IntN(10) < 3 {
		return pick(r, companies)
	}
	return pick(r, firstNames) + " " + pick(r, lastNames)
}

func payerIBAN(r *rand.Rand, currency string) string {
	if currency == "GBP" {
		return genIBAN(r, "GB")
	}
	return genIBAN(r, pick(r, eurCountries))
}

// reference makes a payout reference in one of the shapes merchants use,
// within the characters every scheme accepts.
func reference(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return "INV-" + padded(r.IntN(1_000_000), 6)
	case 1:
		return "WD-" + padded(r.IntN(100_000_000), 8)
	case 2:
		return "PAYOUT " + strconv.Itoa(1000+r.IntN(90_000))
	case 3:
		return "REFUND ORD-" + padded(r.IntN(10_000_000), 7)
	default:
		return "COMMISSION " + padded(1+r.IntN(12), 2) + "/" + strconv.Itoa(2023+r.IntN(3))
	}
}

func padded(v, n int) string { return string(appendDigits(nil, v, n)) }

// seededUUID draws a version-4 UUID from the seeded source.
func seededUUID(r *rand.Rand) string {
	var u uuid.UUID
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			u[i+j] = byte(v >> (8 * j))
		}
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}
