package store

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/boltformat"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// Statuses of a request: the hub's wire values (hubapi), stored as they
// are answered.
const (
	// StatusPending awaits approvals.
	StatusPending = hubapi.StatusPending
	// StatusApproved has every approval it needs (or needed none) and is
	// about to be sent; one left so by a crash is sent at the next start.
	StatusApproved = hubapi.StatusApproved
	// StatusRejected was turned down by an approver.
	StatusRejected = hubapi.StatusRejected
	// StatusLapsed was not approved within the approval TTL.
	StatusLapsed = hubapi.StatusLapsed
	// StatusSending is being sent under its fixed transaction id; one left
	// so by a crash is looked up by that id before anything is sent.
	StatusSending = hubapi.StatusSending
	// StatusSent was accepted by the service.
	StatusSent = hubapi.StatusSent
	// StatusRefused was not sent (the pipeline's checks stopped it when
	// the last approval arrived) or the service refused it: nothing was
	// created.
	StatusRefused = hubapi.StatusRefused
	// StatusUnknown got no definite answer: the payout may exist. The hub
	// looks it up by its transaction id; it is never sent under another.
	StatusUnknown = hubapi.StatusUnknown
)

// Actions in the record: the hub's wire values (hubapi).
const (
	ActRequested = hubapi.ActRequested
	ActApproved  = hubapi.ActApproved
	ActRejected  = hubapi.ActRejected
	ActLapsed    = hubapi.ActLapsed
	ActSending   = hubapi.ActSending
	ActOutcome   = hubapi.ActOutcome
	ActState     = hubapi.ActState
)

// Errors of status changes; the hub answers each with 409 and its text.
var (
	ErrNotFound      = errors.New("no such approval request")
	ErrOwnRequest    = errors.New("the requester cannot approve or reject their own request")
	ErrNotPending    = errors.New("the request is no longer pending")
	ErrLapsed        = errors.New("the request has lapsed")
	ErrNotApproved   = errors.New("the request is not approved for sending")
	ErrDuplicateTxID = errors.New("transaction id already used by another approval request")
	ErrInBatch       = errors.New("the request is a row of a batch, decided whole: approve or reject the batch")
)

// Approval is one person's approval.
type Approval struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// Request is one payout submitted through the hub, as the store keeps it.
// The hub answers with hubapi.Request, converted at its edge.
type Request struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// PayoutState is what the service says of the payout once sent
	// (accepted, then the states its webhooks and report give).
	PayoutState          string     `json:"payout_state"`
	RequestedBy          string     `json:"requested_by"`
	RequestedAt          time.Time  `json:"requested_at"`
	ApprovedBy           []string   `json:"approved_by"`
	Approvals            []Approval `json:"approvals,omitempty"`
	RejectedBy           string     `json:"rejected_by"`
	Reason               string     `json:"reason"`
	NeedsApproval        bool       `json:"needs_approval"`
	Policy               string     `json:"policy,omitempty"`
	ApprovalsNeeded      int        `json:"approvals_needed,omitempty"`
	ExpiresAt            time.Time  `json:"expires_at,omitzero"`
	AmountInMinor        int64      `json:"amount_in_minor"`
	Currency             string     `json:"currency"`
	BeneficiaryName      string     `json:"beneficiary_name"`
	BeneficiaryIBAN      string     `json:"beneficiary_iban"`
	BeneficiaryReference string     `json:"beneficiary_reference"`
	ContextCode          string     `json:"context_code,omitempty"`
	TransactionID        string     `json:"transaction_id"`
	// AllowDuplicate is the requester's --allow-duplicate.
	AllowDuplicate bool `json:"allow_duplicate,omitempty"`
	// Batch is the batch the request is a row of ("" for a single
	// payout): a batch is approved, rejected and lapses whole. BatchFile
	// and Line say which file and line.
	Batch     string `json:"batch,omitempty"`
	BatchFile string `json:"batch_file,omitempty"`
	Line      int    `json:"line,omitempty"`
	// BatchSHA256 is the batch file's digest: the same file submitted
	// again while its batch is open is that batch, not a second one.
	BatchSHA256 string `json:"batch_sha256,omitempty"`
	// Kind, Payment, Mandate, IdempotencyKey and CreatedID are a request
	// that creates a single payment or a mandate (kind.go); "" is a
	// payout.
	Kind           string              `json:"kind,omitempty"`
	Payment        *api.PaymentRequest `json:"payment,omitempty"`
	Mandate        *api.MandateRequest `json:"mandate,omitempty"`
	IdempotencyKey string              `json:"idempotency_key,omitempty"`
	CreatedID      string              `json:"created_id,omitempty"`
	// Detail is the last send's outcome in words (the service's answer).
	Detail    string    `json:"detail,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
	// Rev counts the request's changes.
	Rev uint64 `json:"rev"`

	// WrittenAt is when a JetStream store's stream stored this version
	// (its leader's clock, one for every hub); zero on a bbolt file.
	WrittenAt time.Time `json:"-"`

	// overlaid says a JetStream store read this batch row's decision from
	// its batch, the row not yet written with it.
	overlaid bool
}

// Payout is the payout the request sends, under its fixed transaction id.
func (r *Request) Payout() api.PayoutRequest {
	return api.PayoutRequest{TransactionID: r.TransactionID, BeneficiaryName: r.BeneficiaryName, BeneficiaryIBAN: r.BeneficiaryIBAN,
		BeneficiaryReference: r.BeneficiaryReference, Currency: r.Currency, AmountInMinor: r.AmountInMinor, ContextCode: r.ContextCode}
}

// Open says whether the request still holds money back: waiting, approved
// or being sent. Such requests count as outflows for funds checks.
func (r *Request) Open() bool { return hubapi.Open(r.Status) }

// Entry is one line of the hub's record.
type Entry struct {
	Seq       uint64    `json:"seq"`
	At        time.Time `json:"at"`
	RequestID string    `json:"request_id"`
	Action    string    `json:"action"`
	By        string    `json:"by,omitempty"`
	// Status is the request's status after this step.
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

var (
	bucketRequests = []byte("requests")
	bucketTxIDs    = []byte("txids")
	bucketLog      = []byte("log")
	bucketBatches  = []byte("batches") // batch id -> JSON list of request ids
	// The indexes that keep every read but `List` proportional to what is
	// live, not to the store's history: bucketLive holds the id of every
	// request still live (Live: id -> status), bucketByTime every
	// request under its request time (8 bytes of Unix nanoseconds, big
	// endian, then the id), so the 24-hour sums seek to their window.
	bucketLive   = []byte("live")
	bucketByTime = []byte("bytime")
	bucketMeta   = []byte("meta")
	// metaIndexed marks a file whose indexes are built (a file written
	// before them is indexed once, when first opened).
	metaIndexed = []byte("indexed-v1")
)

// Live says whether a request in status may still change by itself or
// need someone: pending, approved, sending or unknown. Only these are
// read by the hub's routine work (lists, sums of what is held back,
// lapses, recovery); the finished ones (sent, refused, rejected, lapsed)
// are history, read only when asked for all.
func Live(status string) bool {
	switch status {
	case StatusPending, StatusApproved, StatusSending, StatusUnknown:
		return true
	}
	return false
}

// Store is the hub's store: a bbolt file, or (js set) a JetStream
// stream shared by the hubs of a cluster.
type Store struct {
	db *bolt.DB
	js *jsBackend
	// watch is told of each bbolt commit (Watch).
	watch watchers
}

// Open opens (or creates, 0600 in a 0700 directory) the store at path. A
// second hub on the same file waits a second and then says so.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil { //nolint:gosec // the path the administrator gave
		return nil, fmt.Errorf("approvals store: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("approvals store %s is in use by another paydash relay; stop it or give this one another --approvals-store", path)
		}
		return nil, fmt.Errorf("approvals store %s: %w", path, err)
	}
	if err := boltformat.Check(db, path, storeFormat); err != nil {
		db.Close()
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRequests, bucketTxIDs, bucketLog, bucketBatches, bucketLive, bucketByTime, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if err := buildIndexes(tx); err != nil {
			return err
		}
		return boltformat.Put(tx, storeFormat)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("approvals store %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the file (a JetStream store's connection is its
// opener's).
func (s *Store) Close() error {
	if s.js != nil {
		if s.js.view != nil {
			s.js.view.stop()
		}
		return nil
	}
	return s.db.Close()
}

// NewID makes a request id: short enough to type, random enough never to
// be guessed or collide ("apr-" and 10 base32 characters).
func NewID() string {
	b := make([]byte, 7)
	_, _ = rand.Read(b)
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	var sb strings.Builder
	sb.WriteString("apr-")
	v := binary.BigEndian.Uint64(append([]byte{0}, b...))
	for range 10 {
		sb.WriteByte(alphabet[v&31])
		v >>= 5
	}
	return sb.String()
}

func get(tx *bolt.Tx, id string) (*Request, error) {
	data := tx.Bucket(bucketRequests).Get([]byte(id))
	if data == nil {
		return nil, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("approvals store: request %s is damaged: %w", id, err)
	}
	return &r, nil
}

func put(tx *bolt.Tx, r *Request) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketRequests).Put([]byte(r.ID), data); err != nil {
		return err
	}
	return indexLive(tx, r)
}

// indexLive keeps r's entry in the live index current with its status.
func indexLive(tx *bolt.Tx, r *Request) error {
	live := tx.Bucket(bucketLive)
	if Live(r.Status) {
		return live.Put([]byte(r.ID), []byte(r.Status))
	}
	return live.Delete([]byte(r.ID))
}

// timeKey is r's key in the time index.
func timeKey(at time.Time, id string) []byte {
	k := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(k, uint64(max(at.UnixNano(), 0))) //nolint:gosec // clamped at 0
	return append(k, id...)
}

// buildIndexes indexes a file written before the indexes existed: one
// pass over its requests, once.
// Format is the approvals store's format. Format 1 (before store
// versions) has no format key and no indexes of live requests and request
// times: it is migrated in place when opened (its indexes built), after a
// copy of it is kept beside it (path + ".format1.bak"). Format 2 names
// itself in the meta bucket. A store of a newer format is refused rather
// than misread.
const Format = 2

// storeFormat is where the approvals store keeps its format (boltformat).
var storeFormat = boltformat.Spec{What: "approvals store", Current: Format, Data: bucketRequests, Meta: bucketMeta, Key: []byte("format")}

func buildIndexes(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta.Get(metaIndexed) != nil {
		return nil
	}
	byTime := tx.Bucket(bucketByTime)
	err := tx.Bucket(bucketRequests).ForEach(func(k, v []byte) error {
		var r Request
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("request %s is damaged: %w", k, err)
		}
		if err := indexLive(tx, &r); err != nil {
			return err
		}
		return byTime.Put(timeKey(r.RequestedAt, r.ID), nil)
	})
	if err != nil {
		return err
	}
	return meta.Put(metaIndexed, []byte{1})
}

func appendLog(tx *bolt.Tx, e Entry) error {
	b := tx.Bucket(bucketLog)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	e.Seq = seq
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return b.Put(k[:], data)
}

// Note records a line that belongs to no approval request: a payment or
// mandate the hub sent for someone.
func (s *Store) Note(e Entry) error {
	if s.js != nil {
		return s.js.note(e)
	}
	return s.db.Update(func(tx *bolt.Tx) error { return appendLog(tx, e) })
}

// Create stores a new request with its first record line: "requested" by
// its requester (and, for a payout that needs no approval, the status
// approved). Its transaction id must be new to the hub.
func (s *Store) Create(r *Request) error {
	if s.js != nil {
		e, err := prepare(r)
		if err != nil {
			return err
		}
		return s.js.create(r, e)
	}
	if err := s.db.Update(func(tx *bolt.Tx) error { return create(tx, r) }); err != nil {
		return err
	}
	s.committed(r)
	return nil
}

// CreateBatch stores the rows of a batch, all or none, under batch id.
func (s *Store) CreateBatch(batch string, rs []*Request) error {
	if batch == "" || len(rs) == 0 {
		return errors.New("approvals store: a batch needs an id and rows")
	}
	if s.js != nil {
		return s.js.createBatch(batch, rs)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBatches)
		if b.Get([]byte(batch)) != nil {
			return fmt.Errorf("approvals store: batch id %s exists", batch)
		}
		ids := make([]string, len(rs))
		for i, r := range rs {
			r.Batch = batch
			if err := create(tx, r); err != nil {
				return fmt.Errorf("line %d: %w", r.Line, err)
			}
			ids[i] = r.ID
		}
		data, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		return b.Put([]byte(batch), data)
	})
	if err == nil {
		s.committed(rs...)
	}
	return err
}

// Batch returns the rows of a batch, in file order.
func (s *Store) Batch(batch string) ([]Request, error) {
	if s.js != nil {
		_, _, rs, err := s.js.batchAt(batch)
		out := make([]Request, len(rs))
		for i, r := range rs {
			out[i] = *r
		}
		return out, err
	}
	var out []Request
	err := s.db.View(func(tx *bolt.Tx) error {
		rs, err := members(tx, batch)
		for _, r := range rs {
			out = append(out, *r)
		}
		return err
	})
	return out, err
}

func members(tx *bolt.Tx, batch string) ([]*Request, error) {
	data := tx.Bucket(bucketBatches).Get([]byte(batch))
	if data == nil {
		return nil, fmt.Errorf("%w: no batch %q", ErrNotFound, batch)
	}
	var ids []string
	if err := json.Unmarshal(data, &ids); err != nil {
		return nil, fmt.Errorf("approvals store: batch %s is damaged: %w", batch, err)
	}
	out := make([]*Request, 0, len(ids))
	for _, id := range ids {
		r, err := get(tx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// changeBatch runs step on every row of a batch in one transaction: the
// batch is decided whole. step sees the first row for the checks (the
// rows share requester, status and expiry) and changes each row.
func (s *Store) changeBatch(batch string, at time.Time, check func(first *Request) (keep bool, err error), step func(r *Request) *Entry) ([]Request, error) {
	if s.js != nil {
		return s.js.changeBatch(batch, at, check, step)
	}
	var out []Request
	var checkErr error
	var changed []*Request
	err := s.db.Update(func(tx *bolt.Tx) error {
		changed = changed[:0]
		rs, err := members(tx, batch)
		if err != nil {
			return err
		}
		keep, err := check(rs[0])
		if err != nil && !keep {
			for _, r := range rs {
				out = append(out, *r)
			}
			return err
		}
		checkErr = err
		for _, r := range rs {
			e := step(r)
			if e != nil {
				r.Rev++
				r.UpdatedAt = at
				e.At, e.RequestID, e.Status = at, r.ID, r.Status
				if err := put(tx, r); err != nil {
					return err
				}
				if err := appendLog(tx, *e); err != nil {
					return err
				}
				changed = append(changed, r)
			}
			out = append(out, *r)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	s.committed(changed...)
	return out, checkErr
}

// ApproveBatch records by's approval of a whole pending batch, as
// Approve does for one request; done is true for the one approval that
// completes it.
func (s *Store) ApproveBatch(batch, by string, at time.Time, need int) (rs []Request, done bool, err error) {
	lapsed := false
	repeat := false
	rs, err = s.changeBatch(batch, at, func(r *Request) (bool, error) {
		lapsed, repeat, done = false, false, false // checked again when another hub changed it first
		switch {
		case r.RequestedBy == by:
			return false, ErrOwnRequest
		case slices.Contains(r.ApprovedBy, by):
			repeat = true
			return false, nil
		case r.Status == StatusLapsed:
			return false, ErrLapsed
		case r.Status != StatusPending:
			return false, fmt.Errorf("%w: it is %s", ErrNotPending, r.Status)
		case !r.ExpiresAt.IsZero() && !at.Before(r.ExpiresAt):
			lapsed = true
			return true, ErrLapsed
		}
		done = len(r.ApprovedBy)+1 >= need
		return false, nil
	}, func(r *Request) *Entry {
		if repeat {
			return nil
		}
		if lapsed {
			r.Status = StatusLapsed
			return &Entry{Action: ActLapsed, Detail: "batch " + batch + " not approved within the approval TTL (noticed at an approval by " + by + ")"}
		}
		r.ApprovedBy = append(r.ApprovedBy, by)
		r.Approvals = append(r.Approvals, Approval{By: by, At: at})
		if done {
			r.Status = StatusApproved
		}
		return &Entry{Action: ActApproved, By: by, Detail: fmt.Sprintf("batch %s: approval %d of %d", batch, len(r.ApprovedBy), need)}
	})
	return rs, done, err
}

// RejectBatch turns a whole pending batch down.
func (s *Store) RejectBatch(batch, by, reason string, at time.Time) ([]Request, error) {
	return s.changeBatch(batch, at, func(r *Request) (bool, error) {
		if r.RequestedBy == by {
			return false, fmt.Errorf("%w (it lapses, or an approver rejects it)", ErrOwnRequest)
		}
		if r.Status != StatusPending {
			return false, fmt.Errorf("%w: it is %s", ErrNotPending, r.Status)
		}
		return false, nil
	}, func(r *Request) *Entry {
		r.Status, r.RejectedBy, r.Reason = StatusRejected, by, reason
		return &Entry{Action: ActRejected, By: by, Detail: "batch " + batch + ": " + reason}
	})
}

// create stores r with its first record line; its id and transaction id
// must be new.
func create(tx *bolt.Tx, r *Request) error {
	if r.ID == "" || r.TransactionID == "" || r.RequestedBy == "" {
		return errors.New("approvals store: a request needs an id, a transaction id and a requester")
	}
	if tx.Bucket(bucketRequests).Get([]byte(r.ID)) != nil {
		return fmt.Errorf("approvals store: request id %s exists", r.ID)
	}
	txids := tx.Bucket(bucketTxIDs)
	if other := txids.Get([]byte(r.TransactionID)); other != nil {
		return fmt.Errorf("%w (%s)", ErrDuplicateTxID, other)
	}
	if err := txids.Put([]byte(r.TransactionID), []byte(r.ID)); err != nil {
		return err
	}
	e, err := prepare(r)
	if err != nil {
		return err
	}
	if err := put(tx, r); err != nil {
		return err
	}
	if err := tx.Bucket(bucketByTime).Put(timeKey(r.RequestedAt, r.ID), nil); err != nil {
		return err
	}
	return appendLog(tx, e)
}

// prepare sets a new request's first revision and returns its first
// record line: "requested" by its requester.
func prepare(r *Request) (Entry, error) {
	if r.ID == "" || r.TransactionID == "" || r.RequestedBy == "" {
		return Entry{}, errors.New("approvals store: a request needs an id, a transaction id and a requester")
	}
	r.Rev = 1
	r.UpdatedAt = r.RequestedAt
	if r.ApprovedBy == nil {
		r.ApprovedBy = []string{}
	}
	detail := fmt.Sprintf("%s to %s, ref %q, transaction id %s; %s", api.FormatAmount(r.AmountInMinor, r.Currency),
		r.BeneficiaryName, r.BeneficiaryReference, r.TransactionID, r.Policy)
	if r.Kind != "" {
		detail = r.kindDetail()
	}
	return Entry{At: r.RequestedAt, RequestID: r.ID, Action: ActRequested, By: r.RequestedBy, Status: r.Status, Detail: detail}, nil
}

// change runs step on the stored request in one transaction and, when it
// returns an entry, writes the request and the entry. A step returning
// keep=true with an error commits what it changed and still reports the
// error (a lapse found by an approval is recorded, and the approval
// refused).
func (s *Store) change(id string, at time.Time, step func(r *Request) (e *Entry, keep bool, err error)) (Request, error) {
	if s.js != nil {
		return s.js.change(id, at, step)
	}
	var out Request
	var stepErr error
	wrote := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		wrote = false
		r, err := get(tx, id)
		if err != nil {
			return err
		}
		e, keep, err := step(r)
		out = *r
		if err != nil && !keep {
			return err
		}
		stepErr = err
		if e == nil {
			return nil
		}
		r.Rev++
		r.UpdatedAt = at
		e.At, e.RequestID, e.Status = at, r.ID, r.Status
		if err := put(tx, r); err != nil {
			return err
		}
		out = *r
		wrote = true
		return appendLog(tx, *e)
	})
	if err != nil {
		return out, err
	}
	if wrote {
		s.committed(&out)
	}
	return out, stepErr
}

// Approve records by's approval of a pending request. need is how many
// distinct approvals it takes; the approval that completes them moves the
// request to approved, and the caller that gets done=true (only that one)
// sends it. An approval by someone who already approved changes nothing
// and reports done=false: an approve repeated after a lost answer is not
// a second approval.
func (s *Store) Approve(id, by string, at time.Time, need int) (r Request, done bool, err error) {
	r, err = s.change(id, at, func(r *Request) (*Entry, bool, error) {
		done = false // stepped again when another hub changed it first
		if r.Batch != "" {
			return nil, false, fmt.Errorf("%w %s", ErrInBatch, r.Batch)
		}
		if r.RequestedBy == by {
			return nil, false, ErrOwnRequest
		}
		if slices.Contains(r.ApprovedBy, by) {
			return nil, false, nil
		}
		switch r.Status {
		case StatusPending:
		case StatusLapsed:
			return nil, false, ErrLapsed
		default:
			return nil, false, fmt.Errorf("%w: it is %s", ErrNotPending, r.Status)
		}
		if !r.ExpiresAt.IsZero() && !at.Before(r.ExpiresAt) {
			r.Status = StatusLapsed
			return &Entry{Action: ActLapsed, Detail: "not approved within the approval TTL (noticed at an approval by " + by + ")"}, true, ErrLapsed
		}
		r.ApprovedBy = append(r.ApprovedBy, by)
		r.Approvals = append(r.Approvals, Approval{By: by, At: at})
		detail := fmt.Sprintf("approval %d of %d", len(r.ApprovedBy), need)
		if len(r.ApprovedBy) >= need {
			r.Status = StatusApproved
			done = true
		}
		return &Entry{Action: ActApproved, By: by, Detail: detail}, false, nil
	})
	return r, done, err
}

// Reject turns a pending request down, with the reason.
func (s *Store) Reject(id, by, reason string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Batch != "" {
			return nil, false, fmt.Errorf("%w %s", ErrInBatch, r.Batch)
		}
		if r.RequestedBy == by {
			return nil, false, fmt.Errorf("%w (it lapses, or an approver rejects it)", ErrOwnRequest)
		}
		if r.Status != StatusPending {
			return nil, false, fmt.Errorf("%w: it is %s", ErrNotPending, r.Status)
		}
		r.Status, r.RejectedBy, r.Reason = StatusRejected, by, reason
		return &Entry{Action: ActRejected, By: by, Detail: reason}, false, nil
	})
}

// Claim moves an approved request to sending: the one caller that gets
// no error sends it. by is who (or what: "hub") sends.
func (s *Store) Claim(id, by string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Status != StatusApproved {
			return nil, false, fmt.Errorf("%w: it is %s", ErrNotApproved, r.Status)
		}
		r.Status = StatusSending
		return &Entry{Action: ActSending, By: by, Detail: "transaction id " + r.TransactionID}, false, nil
	})
}

// Reclaim takes over a request left sending or unknown, as it was at
// revision rev, to settle it (look it up by its transaction id, then send
// it only if the service does not hold it). On a store shared by several
// hubs, of those settling it at once only the one whose reclaim lands
// goes on; the others get ErrNotApproved. It renews UpdatedAt, the
// claim's lease.
func (s *Store) Reclaim(id string, rev uint64, by string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Rev != rev || r.Status != StatusSending && r.Status != StatusUnknown {
			return nil, false, fmt.Errorf("%w: it is %s, changed since", ErrNotApproved, r.Status)
		}
		return &Entry{Action: ActSending, By: by, Detail: "settling what was left " + r.Status + ": transaction id " + r.TransactionID + " is looked up before anything is sent"}, false, nil
	})
}

// Written is when r's current version was written, on the store's clock
// (Now): its stream time on JetStream, else its UpdatedAt.
func (r *Request) Written() time.Time {
	if !r.WrittenAt.IsZero() {
		return r.WrittenAt
	}
	return r.UpdatedAt
}

// Now is the store's clock, the one every hub judges a claim's lease by:
// on a bbolt file, which one hub keeps, that hub's own (now); on
// JetStream the stream's, read from a message written for it (the
// leader's time of storing it), so hubs whose clocks differ agree on
// when a claim made at one of them has run out. Compare it with
// Request.Written of a request listed since.
func (s *Store) Now(now time.Time) (time.Time, error) {
	if s.js == nil {
		return now, nil
	}
	return s.js.now()
}

// Shared says whether other hubs change the store too (JetStream).
func (s *Store) Shared() bool { return s.js != nil }

// Finish records the outcome of a request being sent (status sending or
// unknown): sent, refused or unknown, the payout's state and the detail.
func (s *Store) Finish(id, status, payoutState, detail string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Status != StatusSending && r.Status != StatusUnknown {
			return nil, false, fmt.Errorf("approvals store: request %s is %s, not being sent", r.ID, r.Status)
		}
		r.Status, r.Detail = status, detail
		r.PayoutState = later(r.PayoutState, payoutState)
		return &Entry{Action: ActOutcome, Detail: strings.TrimSpace(status + " " + payoutState + ": " + detail)}, false, nil
	})
}

// Refuse ends a request that the pipeline's checks stopped before
// anything was sent (funds, duplicate), from status from: approved (the
// check when the last approval arrived) or sending (the check under the
// audit record's lock, by the one sender).
func (s *Store) Refuse(id, from, detail string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Status != from {
			return nil, false, fmt.Errorf("%w: it is %s", ErrNotApproved, r.Status)
		}
		r.Status, r.Detail = StatusRefused, detail
		return &Entry{Action: ActOutcome, Detail: "refused before sending: " + detail}, false, nil
	})
}

// Release puts a request being sent back to approved when the pipeline
// stopped before sending anything (its record or report could not be
// read): the hub sends it again later, under the same transaction id.
func (s *Store) Release(id, detail string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Status != StatusSending {
			return nil, false, fmt.Errorf("approvals store: request %s is %s, not being sent", r.ID, r.Status)
		}
		r.Status, r.Detail = StatusApproved, detail
		return &Entry{Action: ActOutcome, Detail: "not sent, to be tried again: " + detail}, false, nil
	})
}

// SetPayoutState records a later state of a sent payout (from webhooks or
// the report); a state equal to the one held writes nothing.
func (s *Store) SetPayoutState(id, state, detail string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if later(r.PayoutState, state) == r.PayoutState {
			return nil, false, nil
		}
		r.PayoutState = state
		if r.Status == StatusUnknown {
			r.Status = StatusSent
		}
		return &Entry{Action: ActState, Detail: strings.TrimSpace(state + " " + detail)}, false, nil
	})
}

// later is the further on of two payout states (api.StateRank): a state
// learnt by following the payout is never overwritten by an earlier one
// arriving late (the send's own "accepted" recorded after the webhook of
// its settlement).
func later(held, next string) string {
	if next == "" || held != "" && api.StateRank(held) >= api.StateRank(next) {
		return held
	}
	return next
}

// Lapse moves every pending request whose time is up at now to lapsed
// and returns them.
func (s *Store) Lapse(at time.Time) ([]Request, error) {
	if s.js != nil {
		return s.jsLapse(at)
	}
	var out []Request
	err := s.db.Update(func(tx *bolt.Tx) error {
		var due []*Request
		err := forLive(tx, func(r *Request) {
			if r.Status == StatusPending && !r.ExpiresAt.IsZero() && !at.Before(r.ExpiresAt) {
				due = append(due, r)
			}
		})
		if err != nil {
			return err
		}
		for _, r := range due {
			r.Status, r.Rev, r.UpdatedAt = StatusLapsed, r.Rev+1, at
			if err := put(tx, r); err != nil {
				return err
			}
			if err := appendLog(tx, Entry{At: at, RequestID: r.ID, Action: ActLapsed, Status: StatusLapsed, Detail: "not approved within the approval TTL"}); err != nil {
				return err
			}
			out = append(out, *r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		s.committed(&out[i])
	}
	return out, nil
}

// Get returns one request.
func (s *Store) Get(id string) (Request, error) {
	if s.js != nil {
		r, _, err := s.js.get(id)
		if err != nil {
			return Request{}, err
		}
		return *r, nil
	}
	var r *Request
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		r, err = get(tx, id)
		return err
	})
	if err != nil {
		return Request{}, err
	}
	return *r, nil
}

// forLive calls fn with each live request (the live index), in id order.
func forLive(tx *bolt.Tx, fn func(r *Request)) error {
	return tx.Bucket(bucketLive).ForEach(func(k, _ []byte) error {
		r, err := get(tx, string(k))
		if err != nil {
			return err
		}
		fn(r)
		return nil
	})
}

// ListLive returns the live requests (Live) keep selects (nil: all),
// oldest first. It reads the live index only: its cost follows what is
// live, not the store's history.
func (s *Store) ListLive(keep func(*Request) bool) ([]Request, error) {
	var out []Request
	var err error
	if s.js != nil {
		out, err = s.js.listView(func(r *Request) bool { return Live(r.Status) && (keep == nil || keep(r)) })
	} else {
		err = s.db.View(func(tx *bolt.Tx) error {
			return forLive(tx, func(r *Request) {
				if keep == nil || keep(r) {
					out = append(out, *r)
				}
			})
		})
	}
	sortRequests(out)
	return out, err
}

// RecentKept is how far back ListSince reaches on a JetStream store,
// whose hubs hold only the live and recent requests in memory: past the
// 24-hour sums' window, with an hour to spare for clocks apart.
const RecentKept = 25 * time.Hour

// ListSince returns the requests made at or after since (at most
// RecentKept ago) that keep selects (nil: all), oldest first. It reads
// the time index from since on: its cost follows the requests of the
// window, not the store's history.
func (s *Store) ListSince(since time.Time, keep func(*Request) bool) ([]Request, error) {
	var out []Request
	var err error
	if s.js != nil {
		out, err = s.js.listView(func(r *Request) bool { return !r.RequestedAt.Before(since) && (keep == nil || keep(r)) })
	} else {
		err = s.db.View(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketByTime).Cursor()
			for k, _ := c.Seek(timeKey(since, "")); k != nil; k, _ = c.Next() {
				r, err := get(tx, string(k[8:]))
				if err != nil {
					return err
				}
				if keep == nil || keep(r) {
					out = append(out, *r)
				}
			}
			return nil
		})
	}
	sortRequests(out)
	return out, err
}

// sortRequests orders requests oldest first, then by id.
func sortRequests(out []Request) {
	slices.SortStableFunc(out, func(a, b Request) int {
		if c := a.RequestedAt.Compare(b.RequestedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// List returns the requests keep selects (nil: all), oldest first. It
// reads every request the store ever held: for the hub's routine work use
// ListLive or ListSince.
func (s *Store) List(keep func(*Request) bool) ([]Request, error) {
	var out []Request
	err := s.view(func(tx *bolt.Tx) error {
		if s.js != nil {
			all, err := s.js.list()
			for i := range all {
				if keep == nil || keep(&all[i]) {
					out = append(out, all[i])
				}
			}
			return err
		}
		return tx.Bucket(bucketRequests).ForEach(func(k, v []byte) error {
			var r Request
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("approvals store: request %s is damaged: %w", k, err)
			}
			if keep == nil || keep(&r) {
				out = append(out, r)
			}
			return nil
		})
	})
	sortRequests(out)
	return out, err
}

// Outflows sums, per currency, the requests that still hold money back
// (pending, approved, sending) other than except: the funds check of
// every payout counts them as already gone.
func (s *Store) Outflows(except string) (map[string]int64, error) {
	open, err := s.ListLive(func(r *Request) bool { return r.Open() && r.ID != except })
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, r := range open {
		out[r.Currency] += r.AmountInMinor
	}
	return out, nil
}

// Log returns the record lines after seq (0: all), oldest first, at most
// limit of them (0: all); requestID, when set, keeps only that request's.
func (s *Store) Log(after uint64, limit int, requestID string) ([]Entry, error) {
	if s.js != nil {
		return s.js.log(after, limit, requestID)
	}
	var out []Entry
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketLog).Cursor()
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], after+1)
		for key, v := c.Seek(k[:]); key != nil; key, v = c.Next() {
			var e Entry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("approvals store: record line %x is damaged: %w", key, err)
			}
			if requestID != "" && e.RequestID != requestID {
				continue
			}
			out = append(out, e)
			if limit > 0 && len(out) >= limit {
				return nil
			}
		}
		return nil
	})
	return out, err
}

// ByTransactionID returns the request that holds a transaction id.
func (s *Store) ByTransactionID(txid string) (Request, error) {
	if s.js != nil {
		id, ok, err := s.js.byTransactionID(txid)
		if err != nil {
			return Request{}, err
		}
		if !ok {
			return Request{}, fmt.Errorf("%w with transaction id %q", ErrNotFound, txid)
		}
		return s.Get(id)
	}
	var id []byte
	_ = s.db.View(func(tx *bolt.Tx) error {
		id = bytes.Clone(tx.Bucket(bucketTxIDs).Get([]byte(txid)))
		return nil
	})
	if id == nil {
		return Request{}, fmt.Errorf("%w with transaction id %q", ErrNotFound, txid)
	}
	return s.Get(string(id))
}

// view runs fn in a read transaction of the bbolt file, or with no
// transaction (nil) on JetStream.
func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	if s.js != nil {
		return fn(nil)
	}
	return s.db.View(fn)
}

// jsLapse lapses the requests due at at, each by its own
// compare-and-swap: one approved or lapsed meanwhile by another hub is
// left as that hub wrote it.
func (s *Store) jsLapse(at time.Time) ([]Request, error) {
	due, err := s.ListLive(func(r *Request) bool {
		return r.Status == StatusPending && !r.ExpiresAt.IsZero() && !at.Before(r.ExpiresAt)
	})
	if err != nil {
		return nil, err
	}
	var out []Request
	batches := map[string]bool{}
	for _, d := range due {
		if d.Batch != "" {
			if !batches[d.Batch] {
				batches[d.Batch] = true
				rs, err := s.lapseBatch(d.Batch, at)
				if err != nil {
					return out, err
				}
				out = append(out, rs...)
			}
			continue
		}
		lapsed := false
		r, err := s.change(d.ID, at, func(r *Request) (*Entry, bool, error) {
			lapsed = false
			if r.Status != StatusPending || r.ExpiresAt.IsZero() || at.Before(r.ExpiresAt) {
				return nil, false, nil
			}
			r.Status, lapsed = StatusLapsed, true
			return &Entry{Action: ActLapsed, Detail: "not approved within the approval TTL"}, false, nil
		})
		if err != nil {
			return out, err
		}
		if lapsed {
			out = append(out, r)
		}
	}
	return out, nil
}

// errNotDue leaves a batch that is not (or no longer) due to lapse.
var errNotDue = errors.New("not due")

// lapseBatch lapses a pending batch whose time is up, whole.
func (s *Store) lapseBatch(batch string, at time.Time) ([]Request, error) {
	rs, err := s.changeBatch(batch, at, func(r *Request) (bool, error) {
		if r.Status != StatusPending || r.ExpiresAt.IsZero() || at.Before(r.ExpiresAt) {
			return false, errNotDue
		}
		return false, nil
	}, func(r *Request) *Entry {
		r.Status = StatusLapsed
		return &Entry{Action: ActLapsed, Detail: "batch " + batch + " not approved within the approval TTL"}
	})
	if errors.Is(err, errNotDue) {
		return nil, nil
	}
	return rs, err
}
