package sandbox

import (
	"math/rand/v2"
	"slices"
	"sort"
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

// history is the seeded part of the report, generated from the seed each
// time it is read instead of held: a million records would otherwise
// hold about a gigabyte. Records come out oldest first, exactly as one
// pass of the seeded generator makes them, so the same seed gives the same
// report (TestHistoryReportUnchanged). Every markEvery records the
// generator's state is kept, so a report from a later time starts at the
// nearest mark instead of at the first record; the record ids are kept
// as 64-bit hashes so a new payout reusing a seeded id is still a
// duplicate.
type history struct {
	o          Options
	start, end int64 // the window, Unix ns
	step       int64
	currencies []string
	opening    []txn // the opening-balance fundings, then o.History records
	pools      [][]beneficiary
	marks      []histMark
	idHashes   []uint64 // sorted
}

// histMark is the generator's state just before record n*markEvery.
type histMark struct {
	rng    rand.PCG
	bal    []int64 // each account's balance
	booked int64   // booked time of that record
}

const markEvery = 4096

// genState is one walk through the history.
type genState struct {
	h   *history
	pcg rand.PCG
	rng *rand.Rand
	bal []int64
	n   int // index of the next record among the o.History
}

const historyRes = 100 * time.Nanosecond

// newHistory walks the whole history once: it sets the accounts'
// balances (fundings minus settled payouts, never overdrawn), and keeps
// the marks and id hashes, but no record.
func newHistory(o Options, now time.Time, accts []*account) *history {
	h := &history{o: o,
		end:   now.Add(-10 * time.Minute).UTC().Truncate(historyRes).UnixNano(),
		start: now.Add(-time.Duration(o.HistoryDays) * 24 * time.Hour).UTC().Truncate(historyRes).UnixNano(),
	}
	for _, a := range accts {
		h.currencies = append(h.currencies, a.Currency)
	}
	// The seed is a bit pattern, not a quantity: any int64 (negative too)
	// names one history. math/rand is the point here: the same seed must
	// give the same history on every run.
	pcg := rand.NewPCG(uint64(o.HistorySeed), historySeedStream) //nolint:gosec // G115: see above
	rng := rand.New(pcg)                                         //nolint:gosec // G404: a reproducible demo history, not a secret
	bal := make([]int64, len(accts))
	for i, a := range accts {
		if amt := o.InitialFunds[a.Currency]; amt > 0 {
			t := txn{id: seededUUID(rng), kind: kindFundingTxn, status: stSettled, acct: uint8(i),
				settled: h.start, amount: amt, name: MerchantAccountName, iban: payerIBAN(rng, a.Currency),
				ref: "OPENING BALANCE"}
			t.plain = plainStrings(t.id, t.name, t.iban, t.ref, t.context)
			h.opening = append(h.opening, t)
			bal[i] += amt
		}
	}
	if o.History > 0 {
		h.pools = make([][]beneficiary, len(accts))
		for i, a := range accts {
			h.pools[i] = make([]beneficiary, beneficiaryPool)
			for j := range h.pools[i] {
				h.pools[i][j] = beneficiary{name: personOrCompany(rng), iban: payerIBAN(rng, a.Currency)}
			}
		}
		h.step = max((h.end-h.start)/int64(o.History), 1)
	}
	h.idHashes = make([]uint64, 0, len(h.opening)+o.History)
	for i := range h.opening {
		h.idHashes = append(h.idHashes, idHash(h.opening[i].id))
	}
	g := &genState{h: h, pcg: *pcg, bal: bal}
	g.rng = rand.New(&g.pcg) //nolint:gosec // G404: seeded on purpose, as above
	for g.n < o.History {
		if g.n%markEvery == 0 {
			m := histMark{rng: g.pcg, bal: slices.Clone(g.bal)}
			t := g.next()
			m.booked = t.booked()
			h.marks = append(h.marks, m)
			h.idHashes = append(h.idHashes, idHash(t.id))
			continue
		}
		t := g.next()
		h.idHashes = append(h.idHashes, idHash(t.id))
	}
	slices.Sort(h.idHashes)
	for i, a := range accts {
		a.current += g.bal[i]
		a.available += g.bal[i]
	}
	return h
}

func (h *history) currency(acct int) string { return h.currencies[acct] }

// len is the number of records.
func (h *history) len() int { return len(h.opening) + h.o.History }

// idHash is FNV-1a, 64 bits: two distinct ids of a history share a hash
// with a chance of about 1 in 10^7 even at a million records squared.
func idHash(id string) uint64 {
	v := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		v ^= uint64(id[i])
		v *= 1099511628211
	}
	return v
}

// has reports whether a seeded record has this transaction id.
func (h *history) has(id string) bool {
	_, ok := slices.BinarySearch(h.idHashes, idHash(id))
	return ok
}

// each calls fn with every record booked in [from, to], oldest first,
// until fn returns false. It starts at the last mark before from, so a
// report of the last minutes generates a few thousand records, not the
// whole history.
func (h *history) each(from, to int64, fn func(*txn) bool) {
	for i := range h.opening {
		if b := h.opening[i].booked(); b >= from && b <= to && !fn(&h.opening[i]) {
			return
		}
	}
	if len(h.marks) == 0 {
		return
	}
	k := max(sort.Search(len(h.marks), func(i int) bool { return h.marks[i].booked >= from })-1, 0)
	g := &genState{h: h, pcg: h.marks[k].rng, bal: slices.Clone(h.marks[k].bal), n: k * markEvery}
	g.rng = rand.New(&g.pcg) //nolint:gosec // G404: seeded on purpose, as above
	for g.n < h.o.History {
		t := g.next()
		b := t.booked()
		if b > to {
			return // records are in booked order
		}
		if b >= from && !fn(&t) {
			return
		}
	}
}

// next makes record g.n and moves on. Fundings keep each account above
// the low-water mark and above the next payout; payouts take a skewed
// pick from the account's payees.
func (g *genState) next() txn {
	h, rng := g.h, g.rng
	n := g.n
	g.n++
	at := h.start + h.step*int64(n) + rng.Int64N(h.step)
	at -= at % int64(historyRes)
	ai := 0
	if rng.IntN(100) >= gbpPercent {
		ai = 1 % len(g.bal)
	}
	amount := payoutAmount(rng)
	var t txn
	if g.bal[ai] < lowWaterMinor || g.bal[ai] < amount || rng.IntN(100) < 3 {
		t = txn{id: seededUUID(rng), kind: kindFundingTxn, status: stSettled, acct: uint8(ai), settled: at,
			amount: int64(20+rng.IntN(231)) * 100_000, name: pick(rng, funders), iban: payerIBAN(rng, h.currency(ai))}
		t.ref = "TOP-UP " + time.Unix(0, at).UTC().Format("20060102")
		g.bal[ai] += t.amount
	} else {
		b := h.pools[ai][rng.IntN(rng.IntN(beneficiaryPool)+1)] // skewed: some payees recur often
		t = txn{id: seededUUID(rng), kind: kindPayoutTxn, acct: uint8(ai), amount: amount, name: b.name, iban: b.iban,
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
			g.bal[ai] -= amount
		}
	}
	t.plain = plainStrings(t.id, t.name, t.iban, t.ref, t.context)
	return t
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
			u[i+j] = byte(v >> (8 * j)) //nolint:gosec // G115: taking the low byte is the intent
		}
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}
