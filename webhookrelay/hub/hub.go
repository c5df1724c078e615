package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/wsfan"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// Config configures a Hub.
type Config struct {
	Users    *users.Live
	Store    *store.Store
	Policy   policy.Policy
	Pipeline Pipeline
	// Direct sends payments and mandates for request users; nil sends
	// none.
	Direct Direct
	// SharedToken is the relay's --token. It may read (view), never
	// request or approve: those need a person's own token.
	SharedToken string
	// NotifyURL receives {"text": ...} on each new request and lapse.
	NotifyURL string
	// LapseEvery is how often pending requests are checked for lapse
	// (default a minute; approvals also check at the moment they arrive).
	LapseEvery time.Duration
	// BatchAnswerWithin is how long a request that sends a batch waits for
	// its rows before answering with the batch as it stands (default 20 s).
	BatchAnswerWithin time.Duration
	// FeedQueue is how many changes may wait for one subscriber of the
	// approvals feed before it is dropped as too slow (default 256).
	FeedQueue int
	// SendLease is how long a request claimed for sending on a shared
	// store is left to the hub that claimed it (default SendLease),
	// judged on the store's clock (store.Store.Now).
	SendLease  time.Duration
	HTTPClient *http.Client
	Clock      clock.Clock
	Logger     *slog.Logger
}

// Hub serves team mode's API and sends approved payouts.
type Hub struct {
	cfg      Config
	log      *slog.Logger
	submitMu sync.Mutex
	// id names this hub to the others as the holder of the submission
	// lock.
	id      string
	sharedH [32]byte
	notify  *notifier
	// sends tracks payouts being sent, so Close waits for them; once
	// closed, none starts.
	mu     sync.Mutex
	closed bool
	sends  sync.WaitGroup
	// changes fans the store's changes out to the approvals feed's
	// subscribers (watch.go).
	changes   *wsfan.Fanout[hubapi.Change]
	stopWatch func()
}

// New checks cfg: the policy is valid and the users file holds enough
// approvers for it.
func New(cfg Config) (*Hub, error) {
	if cfg.Users == nil || cfg.Store == nil || cfg.Pipeline == nil {
		return nil, errors.New("hub: users, store and pipeline are required")
	}
	if err := cfg.Policy.Validate(); err != nil {
		return nil, err
	}
	if err := policy.CheckApprovers(cfg.Policy.Approvers, cfg.Users.Current().Holding(users.RoleApprove)); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.LapseEvery <= 0 {
		cfg.LapseEvery = time.Minute
	}
	if cfg.BatchAnswerWithin <= 0 {
		cfg.BatchAnswerWithin = 20 * time.Second
	}
	if cfg.FeedQueue <= 0 {
		cfg.FeedQueue = 256
	}
	if cfg.SendLease <= 0 {
		cfg.SendLease = SendLease
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	h := &Hub{cfg: cfg, log: cfg.Logger, id: "hub-" + uuid.NewString()}
	h.sharedH = hashToken(cfg.SharedToken)
	h.notify = newNotifier(cfg.NotifyURL, cfg.HTTPClient, cfg.Logger)
	h.startWatch()
	if f, ok := cfg.Pipeline.(interface {
		SetFinalHook(func(transactionID, state, reason string))
	}); ok {
		f.SetFinalHook(h.final)
	}
	return h, nil
}

// final records a sent payout's final state, as the pipeline followed it.
func (h *Hub) final(transactionID, state, reason string) {
	r, err := h.cfg.Store.ByTransactionID(transactionID)
	if err != nil {
		return // not the hub's
	}
	if _, err := h.cfg.Store.SetPayoutState(r.ID, state, reason, h.cfg.Clock.Now()); err != nil {
		h.log.Error("approvals: recording a payout's final state failed", "id", r.ID, "err", err)
	}
}

// CheckUsers is the rule every reading of the users file must meet for
// this policy; give it to users.Open so a SIGHUP cannot leave the hub
// with fewer approvers than --approvers.
func CheckUsers(p policy.Policy) func(*users.Directory) error {
	return func(d *users.Directory) error {
		return policy.CheckApprovers(p.Approvers, d.Holding(users.RoleApprove))
	}
}

// Run finishes what a previous run left (requests approved but not sent,
// or left being sent) and lapses pending requests as their time comes,
// until ctx is done.
func (h *Hub) Run(ctx context.Context) error {
	h.Recover(ctx)
	t := time.NewTicker(h.cfg.LapseEvery)
	defer t.Stop()
	for {
		h.lapse()
		h.retryApproved(ctx)
		h.settleStale(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Close stops background sends from starting and waits for those under
// way to be recorded.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.sends.Wait()
	if w, ok := h.cfg.Pipeline.(interface{ Wait() }); ok {
		w.Wait()
	}
	h.notify.wait()
	h.stopWatching()
}

// retryApproved sends the requests left approved: their send stopped
// before anything went out (the service or the record could not be read).
func (h *Hub) retryApproved(ctx context.Context) {
	approved, err := h.cfg.Store.ListLive(func(r *store.Request) bool { return r.Status == store.StatusApproved })
	if err != nil {
		h.log.Error("approvals: reading the store failed", "err", err)
		return
	}
	for _, r := range approved {
		if _, err := h.sendDetached(ctx, r.ID); err != nil {
			h.log.Error("approvals: sending an approved request failed; tried again later", "id", r.ID, "err", err)
		}
	}
}

func (h *Hub) lapse() {
	lapsed, err := h.cfg.Store.Lapse(h.cfg.Clock.Now())
	if err != nil {
		h.log.Error("approvals: lapsing requests failed", "err", err)
		return
	}
	told := map[string]bool{} // a batch is told once
	for _, r := range lapsed {
		switch {
		case r.Kind != "":
			w := wireRequest(r)
			h.notify.post(fmt.Sprintf("paydash: approval request %s lapsed unapproved: %s (ref %s), requested by %s",
				r.ID, w.What(), r.BeneficiaryReference, r.RequestedBy))
		case r.Batch == "":
			h.notify.post(fmt.Sprintf("paydash: approval request %s lapsed unapproved: %s to %s (ref %s), requested by %s",
				r.ID, api.FormatAmount(r.AmountInMinor, r.Currency), r.BeneficiaryName, r.BeneficiaryReference, r.RequestedBy))
		case !told[r.Batch]:
			told[r.Batch] = true
			h.notify.post(fmt.Sprintf("paydash: batch %s (%s) lapsed unapproved, requested by %s", r.Batch, r.BatchFile, r.RequestedBy))
		}
	}
}

// Recover sends the requests a previous run approved but did not send,
// and settles those it left being sent or without an answer: each is
// first looked up by its transaction id in the service's report, and only
// when the service does not hold it is it sent, under the same id (the
// service never pays one id twice, so a send that did arrive creates
// nothing new).
func (h *Hub) Recover(ctx context.Context) {
	open, err := h.cfg.Store.ListLive(func(r *store.Request) bool {
		return r.Status == store.StatusApproved || r.Status == store.StatusSending || r.Status == store.StatusUnknown
	})
	if err != nil {
		h.log.Error("approvals: reading the store at start failed", "err", err)
		return
	}
	var storeNow time.Time // read once, when first needed
	for _, r := range open {
		switch r.Status {
		case store.StatusApproved:
			if _, err := h.send(ctx, r.ID); err != nil {
				h.log.Error("approvals: sending an approved request at start failed", "id", r.ID, "err", err)
			}
		case store.StatusSending, store.StatusUnknown:
			r, ok := h.takeOver(r, &storeNow)
			if !ok {
				continue
			}
			if err := h.settle(ctx, r); err != nil {
				h.log.Error("approvals: settling a request left being sent failed; it is tried again at the next start", "id", r.ID, "err", err)
			}
		}
	}
}

// SendLease is how long a request claimed for sending on a store shared
// by several hubs is left to the hub that claimed it (its send is given 2
// minutes) before another takes it over as left by a hub that died.
const SendLease = 3 * time.Minute

// takeOver decides whether this hub settles r, left sending or unknown.
// On a shared store a request another hub may be sending right now is
// left to it until its lease has passed — judged on the store's clock,
// one for every hub (storeNow, read when first needed), never on this
// hub's, which may be minutes apart from the claimer's — and of hubs
// settling one at once only the one whose Reclaim lands does. A hub's
// own file is its alone: what it finds there at start was left by its
// previous run.
func (h *Hub) takeOver(r store.Request, storeNow *time.Time) (store.Request, bool) {
	if !h.cfg.Store.Shared() {
		return r, true
	}
	now := h.cfg.Clock.Now()
	if r.Status == store.StatusSending {
		if storeNow.IsZero() {
			t, err := h.cfg.Store.Now(now)
			if err != nil {
				h.log.Error("approvals: reading the store's clock failed; a claim is left to its hub", "id", r.ID, "err", err)
				return r, false
			}
			*storeNow = t
		}
		if storeNow.Sub(r.Written()) < h.cfg.SendLease {
			return r, false
		}
	}
	nr, err := h.cfg.Store.Reclaim(r.ID, r.Rev, "hub", now)
	if err != nil {
		return r, false
	}
	return nr, true
}

// settleStale settles, on a shared store, the requests a hub that died
// left sending, once their lease has passed: the other hubs do not wait
// for it to start again.
func (h *Hub) settleStale(ctx context.Context) {
	if !h.cfg.Store.Shared() {
		return
	}
	left, err := h.cfg.Store.ListLive(func(r *store.Request) bool { return r.Status == store.StatusSending })
	if err != nil {
		h.log.Error("approvals: reading the store failed", "err", err)
		return
	}
	var storeNow time.Time // read once, only when something is being sent
	for _, r := range left {
		r, ok := h.takeOver(r, &storeNow)
		if !ok {
			continue
		}
		if err := h.settle(ctx, r); err != nil {
			h.log.Error("approvals: settling a request another hub left being sent failed; tried again later", "id", r.ID, "err", err)
		}
	}
}

// settle finishes a request left sending (or unknown) by a previous run.
func (h *Hub) settle(ctx context.Context, r store.Request) error {
	if r.Kind != "" {
		// A payment or mandate is sent again under its idempotency key:
		// the service answers with what it created, or creates it now.
		return h.createAtService(ctx, r)
	}
	state, found, err := h.cfg.Pipeline.Lookup(ctx, r.TransactionID)
	if err != nil {
		return fmt.Errorf("looking up transaction id %s: %w", r.TransactionID, err)
	}
	now := h.cfg.Clock.Now()
	if found {
		_, err := h.cfg.Store.Finish(r.ID, store.StatusSent, state, "found in the service's report by its transaction id after a restart", now)
		return err
	}
	// Not in the report: sent again under the same transaction id, which
	// the service never pays twice (as a resumed batch does), never under
	// another.
	p := r.Payout()
	out, err := h.cfg.Pipeline.Send(ctx, &p, r.AllowDuplicate)
	return h.record(r.ID, out, err)
}

// send runs an approved request through the pipeline; of concurrent
// callers only the one whose claim (approved -> sending) succeeds sends.
// A request that needed approval is checked again first (funds,
// duplicates), since time passed while it waited; its own reservation is
// not counted against it.
func (h *Hub) send(ctx context.Context, id string) (store.Request, error) {
	r, err := h.cfg.Store.Get(id)
	if err != nil || r.Status != store.StatusApproved {
		return r, err
	}
	if r.Kind != "" {
		return h.sendKind(ctx, id) // a payment or mandate (kinds.go)
	}
	p := r.Payout()
	if r.NeedsApproval {
		reserved, err := h.cfg.Store.Outflows(r.ID)
		if err != nil {
			return r, err
		}
		if err := h.cfg.Pipeline.Check(ctx, &p, reserved, r.AllowDuplicate); err != nil {
			switch ErrorClass(err) {
			case ClassUnknown, "":
				// The check itself could not run (the service did not
				// answer): nothing was sent; the request stays approved
				// and is tried again at the hub's next round.
				h.log.Warn("approvals: the check before sending could not run; the request is tried again", "id", r.ID, "err", err)
				return r, nil
			}
			if _, rerr := h.cfg.Store.Refuse(r.ID, store.StatusApproved, err.Error(), h.cfg.Clock.Now()); rerr != nil && !errors.Is(rerr, store.ErrNotApproved) {
				return r, rerr
			}
			return h.cfg.Store.Get(id)
		}
	}
	r, err = h.cfg.Store.Claim(id, "hub", h.cfg.Clock.Now())
	if errors.Is(err, store.ErrNotApproved) {
		return h.cfg.Store.Get(id) // another caller sends it
	}
	if err != nil {
		return r, err
	}
	out, err := h.cfg.Pipeline.Send(ctx, &p, r.AllowDuplicate)
	if rerr := h.record(r.ID, out, err); rerr != nil {
		return r, rerr
	}
	return h.cfg.Store.Get(r.ID)
}

// record writes a send's outcome to the store.
func (h *Hub) record(id string, out Outcome, err error) error {
	now := h.cfg.Clock.Now()
	if err != nil {
		switch ErrorClass(err) {
		case ClassDuplicate, ClassInvalid, ClassFunds, ClassNoAccount, ClassRefused:
			_, rerr := h.cfg.Store.Refuse(id, store.StatusSending, err.Error(), now)
			return rerr
		}
		// Stopped before anything was sent (the pipeline's send errors
		// are Outcomes): approved again, tried at the next round.
		_, rerr := h.cfg.Store.Release(id, err.Error(), now)
		return rerr
	}
	status := store.StatusUnknown
	switch out.Class {
	case Accepted:
		status = store.StatusSent
	case Refused:
		status = store.StatusRefused
	}
	_, rerr := h.cfg.Store.Finish(id, status, out.State, out.Detail, now)
	return rerr
}

// errSubmit is a submission refused before anything was stored.
type errSubmit struct {
	status int
	class  string
	err    error
}

func (e *errSubmit) Error() string { return e.err.Error() }
func (e *errSubmit) Unwrap() error { return e.err }

// problem is the refusal as the hub answers it.
func (e *errSubmit) problem() hubapi.Problem {
	p := hubapi.Problem{Status: e.status, Reason: e.class, Detail: e.Error()}
	var used *idUsedError
	if errors.As(e.err, &used) {
		p.TransactionIDUsedBy = used.by
	}
	return p
}

// idUsedError is a transaction id already held by another approval
// request, by.
type idUsedError struct {
	by  string
	err error
}

func (e *idUsedError) Error() string { return e.err.Error() }
func (e *idUsedError) Unwrap() error { return e.err }

// Submit takes a payout from u: checked by the pipeline, decided by the
// policy, stored with its transaction id fixed, then either sent at once
// or left pending for approval. A submission repeating a stored request's
// transaction id from the same requester with the same details returns
// that request (an answer lost on the way back), never a second one.
func (h *Hub) Submit(ctx context.Context, u users.User, sub hubapi.Submission) (hubapi.Result, error) {
	req := sub.PayoutRequest
	req.BeneficiaryIBAN = api.NormalizeIBAN(req.BeneficiaryIBAN)
	if req.TransactionID == "" {
		req.TransactionID = uuid.NewString()
	}
	if probs := api.ValidatePayout(&req); len(probs) > 0 {
		return hubapi.Result{}, &errSubmit{http.StatusUnprocessableEntity, ClassInvalid, fmt.Errorf("the payout is not valid: %w", probs)}
	}
	h.submitMu.Lock()
	unlock, err := h.lockSubmissions(ctx)
	if err != nil {
		h.submitMu.Unlock()
		return hubapi.Result{}, err
	}
	r, fresh, err := h.create(ctx, u, req, sub.AllowDuplicate)
	unlock()
	h.submitMu.Unlock()
	if err != nil {
		return hubapi.Result{}, err
	}
	res := hubapi.Result{ApprovalID: r.ID, Reason: r.Policy, ApprovalsNeeded: r.ApprovalsNeeded}
	if r.NeedsApproval {
		res.Approvers = h.approversFor(r)
		if fresh {
			h.notify.post(fmt.Sprintf("paydash: %s asks for approval of %s to %s (ref %s): paydash approvals show %s",
				r.RequestedBy, api.FormatAmount(r.AmountInMinor, r.Currency), r.BeneficiaryName, r.BeneficiaryReference, r.ID))
		}
	} else if r.Status == store.StatusApproved {
		if r, err = h.sendDetached(ctx, r.ID); err != nil {
			return hubapi.Result{}, err
		}
	}
	res.Request = wireRequest(r)
	res.Status = r.Status
	if r.Status == store.StatusPending {
		res.Status = hubapi.StatusAwaitingApproval
	}
	return res, nil
}

// submitLease bounds how long a hub holds a shared store's submission
// lock: a hub that dies holding it holds up the others no longer.
const submitLease = 30 * time.Second

// lockSubmissions takes the shared store's submission lock (one hub of a
// cluster at a time; nothing for a hub's own file, which submitMu
// guards), waiting at most submitLease for it.
func (h *Hub) lockSubmissions(ctx context.Context) (func(), error) {
	lctx, cancel := context.WithTimeout(ctx, submitLease)
	defer cancel()
	unlock, err := h.cfg.Store.LockSubmissions(lctx, h.id, submitLease, h.cfg.Clock.Now)
	if err != nil {
		return nil, &errSubmit{http.StatusServiceUnavailable, ClassUnknown, fmt.Errorf("%w; nothing was requested or sent", err)}
	}
	return unlock, nil
}

// create runs the checks and stores the request; the caller holds
// submitMu and the submission lock, so the 24-hour sum and the funds
// held back are read and added to by one submission at a time, at this
// hub and every other hub of a cluster.
func (h *Hub) create(ctx context.Context, u users.User, req api.PayoutRequest, allowDup bool) (store.Request, bool, error) {
	if old, err := h.cfg.Store.ByTransactionID(req.TransactionID); err == nil {
		p := old.Payout()
		if old.RequestedBy == u.Name && p == req {
			return old, false, nil
		}
		return store.Request{}, false, &errSubmit{http.StatusConflict, ClassDuplicate,
			&idUsedError{by: old.ID, err: fmt.Errorf("transaction id %s is already used by approval request %s for another payout; leave --transaction-id out for a new one", req.TransactionID, old.ID)}}
	}
	if !allowDup {
		if err := h.openDuplicate(&req); err != nil {
			return store.Request{}, false, err
		}
	}
	now := h.cfg.Clock.Now()
	// Everyone's, not only u's: the sum per payee counts across
	// requesters, so colleagues cannot split round the threshold either.
	sent, err := h.cfg.Store.ListSince(now.Add(-policy.SumWindow), func(r *store.Request) bool {
		return !r.NeedsApproval && now.Sub(r.RequestedAt) < policy.SumWindow && r.Status != store.StatusRefused
	})
	if err != nil {
		return store.Request{}, false, err
	}
	prior := make([]policy.Sent, len(sent))
	for i, r := range sent {
		prior[i] = policy.Sent{Requester: r.RequestedBy, IBAN: r.BeneficiaryIBAN, Currency: r.Currency, AmountInMinor: r.AmountInMinor, At: r.RequestedAt}
	}
	d := h.cfg.Policy.DecideSums(req.AmountInMinor, req.Currency, policy.RecentSums(prior, u.Name, req.BeneficiaryIBAN, req.Currency, now))
	reserved, err := h.cfg.Store.Outflows("")
	if err != nil {
		return store.Request{}, false, err
	}
	if err := h.cfg.Pipeline.Check(ctx, &req, reserved, allowDup); err != nil {
		status := http.StatusConflict
		switch ErrorClass(err) {
		case ClassInvalid:
			status = http.StatusUnprocessableEntity
		case ClassUnknown, "":
			status = http.StatusBadGateway
		}
		return store.Request{}, false, &errSubmit{status, ErrorClass(err), fmt.Errorf("%w; nothing was requested or sent", err)}
	}
	r := store.Request{ID: store.NewID(), Status: store.StatusApproved, RequestedBy: u.Name, RequestedAt: now,
		NeedsApproval: d.Needed, Policy: d.Reason, AmountInMinor: req.AmountInMinor, Currency: req.Currency,
		BeneficiaryName: req.BeneficiaryName, BeneficiaryIBAN: req.BeneficiaryIBAN, BeneficiaryReference: req.BeneficiaryReference,
		ContextCode: req.ContextCode, TransactionID: req.TransactionID, AllowDuplicate: allowDup}
	if d.Needed {
		r.Status, r.ExpiresAt, r.ApprovalsNeeded = store.StatusPending, now.Add(h.cfg.Policy.TTL), h.cfg.Policy.Approvers
	}
	if err := h.cfg.Store.Create(&r); err != nil {
		return store.Request{}, false, err
	}
	return r, true, nil
}

// openDuplicate refuses a payout with the same details (payout.SameDetails)
// as a request still open on the hub: pending ones are in no audit record
// yet, so the pipeline's check cannot see them.
func (h *Hub) openDuplicate(req *api.PayoutRequest) error {
	open, err := h.cfg.Store.ListLive(func(r *store.Request) bool {
		p := r.Payout()
		return r.Open() && payout.SameDetails(&p, req)
	})
	if err != nil {
		return err
	}
	if len(open) > 0 {
		o := open[0]
		return &errSubmit{http.StatusConflict, ClassDuplicate, fmt.Errorf("possible duplicate: approval request %s, requested by %s, is already %s for the same IBAN, amount, currency and reference; nothing was requested (pass --allow-duplicate to request a second payout)",
			o.ID, o.RequestedBy, o.Status)}
	}
	return nil
}

// approversFor lists who may approve r: the approve role, not the
// requester, not who already approved.
func (h *Hub) approversFor(r store.Request) []string {
	var out []string
	for _, n := range h.cfg.Users.Current().Holding(users.RoleApprove) {
		if n != r.RequestedBy && !contains(r.ApprovedBy, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Approve records u's approval; the approval that completes the request
// sends it (once, whoever else approves at the same moment).
func (h *Hub) Approve(ctx context.Context, u users.User, id string) (store.Request, error) {
	r, done, err := h.cfg.Store.Approve(id, u.Name, h.cfg.Clock.Now(), h.cfg.Policy.Approvers)
	if errors.Is(err, store.ErrLapsed) && r.Status == store.StatusLapsed {
		what := api.FormatAmount(r.AmountInMinor, r.Currency) + " to " + r.BeneficiaryName
		if r.Kind != "" {
			w := wireRequest(r)
			what = w.What()
		}
		h.notify.post(fmt.Sprintf("paydash: approval request %s lapsed unapproved: %s, requested by %s", r.ID, what, r.RequestedBy))
	}
	if err != nil || !done {
		return r, err
	}
	return h.sendDetached(ctx, id)
}

// sendDetached sends outside the HTTP request's life: an approver whose
// connection drops must not cancel a payout half sent.
func (h *Hub) sendDetached(ctx context.Context, id string) (store.Request, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return h.cfg.Store.Get(id) // sent at the next start
	}
	h.sends.Add(1)
	h.mu.Unlock()
	defer h.sends.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	return h.send(sctx, id)
}

// Reject turns a request down.
func (h *Hub) Reject(u users.User, id, reason string) (store.Request, error) {
	return h.cfg.Store.Reject(id, u.Name, reason, h.cfg.Clock.Now())
}
