package payout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Holder says which process holds a lock: written beside the lock file
// (PATH.owner) once the lock is taken, so the process that finds it taken
// can tell the person who to wait for.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	What    string    `json:"what"`
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on %s since %s (%s)", h.PID, h.Host, h.Started.UTC().Format(time.RFC3339), h.What)
}

// Lock is an OS file lock (flock) held by this process.
type Lock struct {
	fl    *flock.Flock
	owner string
}

// ErrLocked is wrapped when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// LockedError names the process holding a lock.
type LockedError struct {
	Path   string
	Holder *Holder // nil when the owner file could not be read
}

func (e *LockedError) Error() string {
	who := "another process (its owner file is missing)"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("%s is locked by %s", e.Path, who)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// TryLock takes the lock at path without waiting. what says what the
// holder is doing ("payout batch payroll.csv"). A lock held by another
// process gives a *LockedError. The OS drops the lock when the process
// dies, kill -9 included, so a crash never leaves a stale lock.
func TryLock(path, what string) (*Lock, error) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, &LockedError{Path: path, Holder: readHolder(path + ".owner")}
	}
	return held(fl, path, what), nil
}

// Holding reports whether another process holds the lock at path, and
// who when its owner file says. It only looks: a shared lock taken and
// dropped at once, so nothing waits on it and no owner file is written.
func Holding(path string) (*Holder, bool) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryRLock()
	if err != nil {
		return nil, false // no lock file: nobody holds it
	}
	if ok {
		_ = fl.Unlock()
		return nil, false
	}
	return readHolder(path + ".owner"), true
}

// WaitLock takes the lock at path, waiting up to timeout for another
// process to release it (for locks held only for a moment, like the
// audit record's).
func WaitLock(ctx context.Context, path, what string, timeout time.Duration) (*Lock, error) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	if !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, &LockedError{Path: path, Holder: readHolder(path + ".owner")}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return held(fl, path, what), nil
}

func held(fl *flock.Flock, path, what string) *Lock {
	host, _ := os.Hostname()
	h := Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), What: what}
	b, _ := json.Marshal(h)
	owner := path + ".owner"
	// Best effort: the lock is what protects; the owner file only
	// explains. A failure to write it must not stop a run.
	_ = os.WriteFile(owner, append(b, '\n'), 0o600)
	return &Lock{fl: fl, owner: owner}
}

func readHolder(path string) *Holder {
	b, err := os.ReadFile(path) //nolint:gosec // the owner file beside a lock paydash takes
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil {
		return nil
	}
	return &h
}

// Unlock releases the lock. The owner file is left: it is rewritten by
// the next holder and names the last one in the meantime.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}
