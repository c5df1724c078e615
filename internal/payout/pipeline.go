package payout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Sender sends one payout; *api.Client is one.
type Sender interface {
	CreatePayout(ctx context.Context, req *api.PayoutRequest) error
}

// BalanceReader reads the payout accounts; *api.Client is one.
type BalanceReader interface {
	Balances(ctx context.Context) ([]api.Balance, error)
}

// Service is the whole api client a Pipeline uses; *api.Client is one.
type Service interface {
	Sender
	ReportReader
	BalanceReader
}

// New is a Pipeline sending through svc, reading its report and
// balances, and keeping the audit record log (nil keeps none).
func New(svc Service, log *Log, source string) *Pipeline {
	return &Pipeline{Sender: svc, Report: svc, Balances: svc, Log: log, Source: source}
}

// Pipeline runs payouts of one profile through the stages of the package
// doc. The zero value of each optional field leaves its check out; a
// Pipeline is safe for concurrent use (the audit record locks).
type Pipeline struct {
	// Sender sends the payouts.
	Sender Sender
	// Report is the service's transaction report, read for duplicates
	// and ids; nil checks the audit record only.
	Report ReportReader
	// Balances are read to refuse a payout its account cannot make; nil
	// leaves that check out.
	Balances BalanceReader
	// Log is the profile's audit record; nil keeps none (and checks only
	// the report).
	Log *Log
	// Shared, when set, is the audit record used instead of Log: one
	// kept off this machine and appended to by several processes (the
	// hubs of a cluster share theirs over JetStream), whose ReserveIf is
	// the lock every one of them checks duplicates under.
	Shared Record
	// Source names the caller in the record: SourceForm, SourceCreate,
	// SourceBatch, SourceHub.
	Source string
	// Window is how far back a payout with the same details counts as a
	// duplicate; 0 means DefaultWindow.
	Window time.Duration
	// States tells what became of earlier payouts the record shows only
	// accepted, so a rejected one does not block its re-send; nil with
	// RelayURL set reads the relay's history.
	States FinalStates
	// RelayURL and RelayToken are the relay Follow subscribes to.
	RelayURL, RelayToken string
	// Relay, when set, is a relay read in-process (the team hub runs
	// inside one): Follow subscribes to it and, with States nil, the
	// duplicate check asks it what became of earlier payouts; RelayURL
	// is then not used.
	Relay EventSource
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// SourceHub is a payout the approvals hub sends once approved.
const SourceHub = "hub"

// Stage names a stage of the pipeline, for progress.
type Stage string

// The stages, in order.
const (
	StageValidate Stage = "validate"
	StageCheck    Stage = "check"
	StageConfirm  Stage = "confirm"
	StageReserve  Stage = "reserve"
	StageSend     Stage = "send"
	StageRecord   Stage = "record"
	StageFollow   Stage = "follow"
)

// Options say what the operator decided about one payout.
type Options struct {
	// AllowDuplicate sends it even when it matches payouts already made
	// (a second payout the operator confirmed).
	AllowDuplicate bool
	// Acked are the earlier payouts (by transaction id) the operator
	// confirmed paying again; a match outside them still holds it.
	Acked map[string]bool
	// IDGiven says the transaction id came from the operator (a flag, a
	// file's cell), so it is looked for in the service's whole report,
	// not only the duplicate window: an id names one payout for ever.
	IDGiven bool
	// SkipFunds leaves out the balance check (a batch checks each
	// currency's total before its first row).
	SkipFunds bool
	// BatchFile and Line name the batch row, in the record.
	BatchFile string
	Line      int
	// Follow, when positive, is how long Run follows an accepted payout
	// to its final state.
	Follow time.Duration
}

// Hooks are how Run asks and shows progress; every one may be nil.
type Hooks struct {
	// Stage hears each stage as it starts.
	Stage func(Stage)
	// Confirm is asked after the checks and before anything is recorded
	// or sent, with what the checks found; an error stops the payout
	// (nothing recorded, nothing sent) and is returned as is.
	Confirm func(ctx context.Context, c *Checked) error
	// Notice hears what the operator should know on the way (the relay
	// is unreachable, the record could not be written after sending).
	Notice func(string)
	// Check, when set, stands in for the check stage: the caller checked
	// the payout already, with others, over one read of the record and
	// the report (a batch plans every row before the operator confirms
	// the list), and gives what it found for this one. Reserve still
	// checks the record once more, under its lock, before the send.
	Check func(ctx context.Context, req *api.PayoutRequest, opt Options) (*Checked, error)
	// Answered hears the answer, classified, before it is recorded: a
	// batch writes it to its journal there. An error stops Run with the
	// answer unrecorded (the attempt stays in the record) and is
	// returned as is.
	Answered func(ctx context.Context, a Answer) error
}

// Checked is what the check stage found.
type Checked struct {
	// Matches are earlier payouts with the same details that the
	// operator allowed (Options); the payout is then a second payout.
	Matches []Payment `json:"duplicate_of,omitempty"`
	// AlreadySent is the same payout sent before under the same id: a
	// safe retry, for which the service creates nothing new.
	AlreadySent *Payment `json:"already_sent,omitempty"`
	// Account is the payout account it pays from, when balances were
	// read.
	Account *api.Balance `json:"-"`
}

// Result is what became of one payout.
type Result struct {
	Request *api.PayoutRequest `json:"-"`
	Checked *Checked           `json:"-"`
	Answer  Answer             `json:"answer"`
	// Final is set when Run followed the payout.
	Final *Final `json:"final,omitempty"`
	// RecordErr is why the answer could not be appended to the record
	// (Notice heard it too). The payout had left, so Run went on; a
	// batch stops there rather than send more under a record it cannot
	// write.
	RecordErr error `json:"-"`
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Pipeline) window() time.Duration {
	if p.Window <= 0 {
		return DefaultWindow
	}
	return p.Window
}

func (p *Pipeline) report() ReportReader { return p.Report }

// record is the audit record in use: Shared, else Log, else none (a nil
// interface, never one holding a nil *Log).
func (p *Pipeline) record() Record {
	if p.Shared != nil {
		return p.Shared
	}
	if p.Log != nil {
		return p.Log
	}
	return nil
}

// AuditRecord is the audit record the pipeline reads and writes (nil:
// none).
func (p *Pipeline) AuditRecord() Record { return p.record() }

// WithService returns a copy of p that sends through svc and reads its
// report and balances where p names none (the dashboard's form sends
// through its backend).
func (p *Pipeline) WithService(svc Service) *Pipeline {
	q := *p
	if q.Sender == nil {
		q.Sender = svc
	}
	if q.Report == nil {
		q.Report = svc
	}
	if q.Balances == nil {
		q.Balances = svc
	}
	return &q
}

func (p *Pipeline) states() FinalStates {
	if p.States == nil && p.Relay != nil {
		return p.Relay
	}
	if p.States == nil && p.RelayURL != "" {
		return relayclient.History{URL: p.RelayURL, Token: p.RelayToken}
	}
	return p.States
}

// Validate is stage 1: the api's rules for a payout request.
func (p *Pipeline) Validate(req *api.PayoutRequest) error {
	if ps := api.ValidatePayout(req); len(ps) > 0 {
		return &InvalidError{Problems: ps}
	}
	return nil
}

// Known loads what the duplicate check knows: the record, the report
// over the window, and, for ids given by the operator, the whole report.
// The batch plans its rows over it.
func (p *Pipeline) Known(ctx context.Context, givenIDs []string) (*Known, error) {
	k, err := Load(ctx, p.record(), p.report(), p.now(), p.window())
	if err != nil {
		return nil, err
	}
	if len(givenIDs) > 0 {
		if err := k.FindIDs(ctx, p.report(), givenIDs); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// Check is stage 2: the transaction id, duplicates and funds. It writes
// nothing but outcomes learnt from the report or the relay about earlier
// payouts (see Resolve).
func (p *Pipeline) Check(ctx context.Context, req *api.PayoutRequest, opt Options) (*Checked, error) {
	var ids []string
	if opt.IDGiven {
		ids = []string{req.TransactionID}
	}
	k, err := p.Known(ctx, ids)
	if err != nil {
		return nil, err
	}
	c := &Checked{}
	if err := p.CheckID(k, req, c); err != nil {
		return nil, err
	}
	m, err := p.Duplicates(ctx, k, req, opt)
	c.Matches = m
	if err != nil {
		return c, err
	}
	if opt.SkipFunds || c.AlreadySent != nil || p.Balances == nil {
		return c, nil
	}
	bals, err := p.Balances.Balances(ctx)
	if err != nil {
		return c, fmt.Errorf("checking the %s balance before sending: %w (nothing was sent)", req.Currency, err)
	}
	acct, err := CheckFunds(bals, req.Currency, req.AmountInMinor)
	c.Account = acct
	return c, err
}

// CheckID refuses an id already used for another payout, and notes the
// same payout sent before under it (a safe retry) in c.
func (p *Pipeline) CheckID(k *Known, req *api.PayoutRequest, c *Checked) error {
	was, ok := k.ByID(req.TransactionID)
	if !ok || (was.Where == FromLocalRecord && was.Outcome == OutcomeRefused && !k.InReport(req.TransactionID)) {
		// Unknown, or only refused: the service created nothing under
		// it, so the id is free for a corrected payout.
		return nil
	}
	if other := k.UsedFor(req.TransactionID, req); other != "" {
		return &IDUsedError{TransactionID: req.TransactionID, Was: other}
	}
	if was.Where == FromReport || Created(was.Outcome) {
		c.AlreadySent = &was
	}
	return nil
}

// Duplicates returns the payouts already made that req matches, brought
// up to date (Resolve: a payout rejected since does not count), and a
// *DuplicateError when the operator has not allowed them.
func (p *Pipeline) Duplicates(ctx context.Context, k *Known, req *api.PayoutRequest, opt Options) ([]Payment, error) {
	now := p.now()
	m := Resolve(ctx, p.record(), k, p.states(), k.Matching(req, now, p.window()), now)
	if len(m) > 0 && !opt.allowed(m) {
		return m, &DuplicateError{Matches: m}
	}
	return m, nil
}

func (o Options) allowed(m []Payment) bool {
	if o.AllowDuplicate {
		return true
	}
	for _, p := range m {
		if !o.Acked[p.TransactionID] {
			return false
		}
	}
	return true
}

// CheckFunds finds the payout account of currency in bals and refuses a
// payout of amount it cannot make: no account, disabled, or less
// available than amount.
func CheckFunds(bals []api.Balance, currency string, amount int64) (*api.Balance, error) {
	for i := range bals {
		b := &bals[i]
		if !strings.EqualFold(b.Currency, currency) {
			continue
		}
		if b.Status == api.AccountDisabled {
			return b, &AccountError{Currency: currency, Disabled: true}
		}
		if amount > b.AvailableBalanceInMinor {
			return b, &FundsError{Currency: currency, AmountInMinor: amount, AvailableInMinor: b.AvailableBalanceInMinor}
		}
		return b, nil
	}
	return nil, &AccountError{Currency: currency}
}

// Reserve is stage 3: the attempt is written to the record, fsynced,
// under its OS lock, unless the record now shows a match the operator
// did not allow (sent by another paydash since the check): then nothing
// is written and a *DuplicateError says which.
func (p *Pipeline) Reserve(ctx context.Context, req *api.PayoutRequest, opt Options, c *Checked) error {
	rec := p.record()
	if rec == nil {
		return nil
	}
	allowedDup := c != nil && len(c.Matches) > 0
	m, err := rec.ReserveIf(ctx, Entry{Source: p.Source, TransactionID: req.TransactionID, Name: req.BeneficiaryName,
		IBAN: req.BeneficiaryIBAN, Reference: req.BeneficiaryReference, AmountInMinor: req.AmountInMinor,
		Currency: req.Currency, BatchFile: opt.BatchFile, Line: opt.Line, AllowedDuplicate: allowedDup},
		p.window(), opt.allowed)
	if err != nil {
		return err
	}
	if len(m) > 0 && !opt.allowed(m) {
		return &DuplicateError{Matches: m}
	}
	return nil
}

// Send is stages 4 and 5: one POST under req's transaction id, its
// answer classified.
func (p *Pipeline) Send(ctx context.Context, req *api.PayoutRequest) Answer {
	return Classify(p.Sender.CreatePayout(ctx, req))
}

// RecordAnswer is stage 6: the answer is appended to the record. An
// accepted re-send of a payout sent before under the same id is recorded
// as OutcomeExisting (the service created nothing new).
func (p *Pipeline) RecordAnswer(req *api.PayoutRequest, c *Checked, a Answer) error {
	rec := p.record()
	if rec == nil {
		return nil
	}
	outcome, detail := a.Outcome, ""
	if a.Err != nil {
		detail = a.Err.Error()
	}
	if a.Accepted() && c != nil && c.AlreadySent != nil {
		outcome = OutcomeExisting
	}
	return rec.Outcome(req.TransactionID, outcome, detail)
}

// RecordFinal appends a final state learnt by following a payout.
func (p *Pipeline) RecordFinal(id string, f Final) error {
	rec := p.record()
	if rec == nil || f.State == "" {
		return nil
	}
	detail := f.Reason
	if f.Returned && detail == "" {
		detail = ReasonReturned
	}
	return rec.Outcome(id, f.State, detail)
}

// Record appends a final state learnt later (the dashboard's tracker)
// for a payout this profile sent; ids the record does not hold are left
// alone (see Log.FinalOutcome).
func (p *Pipeline) Record(id, state, reason string) error {
	rec := p.record()
	if rec == nil {
		return nil
	}
	_, err := rec.FinalOutcome(id, state, reason)
	return err
}

// Recorded returns, for the ids the record holds an attempt for, the
// payout as it was sent (the latest attempt of each): the dashboard's
// tracker shows payee and amount from it for payouts the report lacks.
func (p *Pipeline) Recorded(ids map[string]bool) (map[string]api.PayoutRequest, error) {
	out := map[string]api.PayoutRequest{}
	rec := p.record()
	if rec == nil {
		return out, nil
	}
	// The local file keeps an index: a look-up per id, not a pass over
	// the record (the dashboard asks on every batch of new payouts).
	if ix, ok := rec.(interface {
		Attempted(map[string]bool) (map[string]api.PayoutRequest, error)
	}); ok {
		return ix.Attempted(ids)
	}
	entries, err := rec.Entries()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Event == EventAttempt && ids[e.TransactionID] {
			out[e.TransactionID] = e.Request()
		}
	}
	return out, nil
}

// Run takes one payout through every stage: validate, check (or
// Hooks.Check), confirm (Hooks.Confirm), reserve, send, classify
// (Hooks.Answered hears the answer), record and, with
// Options.Follow, follow to a final state (recorded too). It returns the
// result so far and, when the payout was stopped or not accepted, an
// error implementing Classed (a *SendError after a send), or the
// Confirm hook's own error.
func (p *Pipeline) Run(ctx context.Context, req *api.PayoutRequest, opt Options, h Hooks) (*Result, error) {
	stage := func(s Stage) {
		if h.Stage != nil {
			h.Stage(s)
		}
	}
	notice := func(s string) {
		if h.Notice != nil && s != "" {
			h.Notice(s)
		}
	}
	res := &Result{Request: req}
	stage(StageValidate)
	if err := p.Validate(req); err != nil {
		return res, err
	}
	stage(StageCheck)
	check := p.Check
	if h.Check != nil {
		check = h.Check
	}
	c, err := check(ctx, req, opt)
	res.Checked = c
	if err != nil {
		return res, stageErr(StageCheck, err)
	}
	if h.Confirm != nil {
		stage(StageConfirm)
		if err := h.Confirm(ctx, c); err != nil {
			return res, err
		}
		// The operator saw the matches and sent anyway.
		for _, m := range c.Matches {
			if opt.Acked == nil {
				opt.Acked = map[string]bool{}
			}
			opt.Acked[m.TransactionID] = true
		}
	}
	stage(StageReserve)
	if err := p.Reserve(ctx, req, opt, c); err != nil {
		return res, stageErr(StageReserve, err)
	}
	var f *Follower
	if opt.Follow > 0 {
		// Subscribed before sending, so no event is missed.
		f = p.Follow(ctx, req.TransactionID)
		defer f.Stop()
		notice(f.Notice)
	}
	stage(StageSend)
	res.Answer = p.Send(ctx, req)
	if h.Answered != nil {
		if err := h.Answered(ctx, res.Answer); err != nil {
			return res, err
		}
	}
	stage(StageRecord)
	if err := p.RecordAnswer(req, c, res.Answer); err != nil {
		res.RecordErr = err
		notice(fmt.Sprintf("warning: %v", err))
	}
	if !res.Answer.Accepted() {
		return res, &SendError{TransactionID: req.TransactionID, Answer: res.Answer}
	}
	if f == nil {
		return res, nil
	}
	stage(StageFollow)
	fin := f.Wait(ctx, opt.Follow)
	res.Final = &fin
	if err := p.RecordFinal(req.TransactionID, fin); err != nil {
		notice(fmt.Sprintf("warning: %v", err))
	}
	return res, nil
}
