package sandbox

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// IdempotencyKeyTTL is how long a stored Idempotency-Key is remembered.
const IdempotencyKeyTTL = 24 * time.Hour

// maxIdempotencyKey caps the key's length.
const maxIdempotencyKey = 255

// HeaderIdempotentReplayed marks a response replayed from the store.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// storedResponse is the first successful answer to an Idempotency-Key.
type storedResponse struct {
	fingerprint [32]byte
	status      int
	body        []byte
	at          time.Time
}

// idempotencyStore remembers successful responses per Idempotency-Key. Its
// lock is held while a keyed request runs (creation is in-memory and
// quick), so two concurrent requests with one key create one resource.
type idempotencyStore struct {
	mu    sync.Mutex
	clock clock.Clock
	m     map[string]*storedResponse
	puts  int
}

func newIdempotencyStore(c clock.Clock) *idempotencyStore {
	return &idempotencyStore{clock: c, m: map[string]*storedResponse{}}
}

// keyed runs create at most once per Idempotency-Key: the same key with the
// same method, path and body gets the stored response again (with
// Idempotent-Replayed: true); with anything else, 422. Only successful
// responses are stored, so a request refused by validation can be fixed
// and re-sent under the same key.
func (s *Sandbox) keyed(w http.ResponseWriter, r *http.Request, body []byte, create func() (int, any, error)) error {
	key := r.Header.Get(api.HeaderIdempotencyKey)
	switch {
	case key == "":
		return errInvalidParameters(map[string][]string{
			api.HeaderIdempotencyKey: {"header is required; send a new UUID for each new request and the same one when retrying it"},
		})
	case len(key) > maxIdempotencyKey:
		return errInvalidParameters(map[string][]string{
			api.HeaderIdempotencyKey: {fmt.Sprintf("header is %d characters; use at most %d (a UUID is 36)", len(key), maxIdempotencyKey)},
		})
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.Path)
	h.Write(body)
	var fp [32]byte
	h.Sum(fp[:0])

	st := s.idem
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.clock.Now()
	if prev, ok := st.m[key]; ok && now.Sub(prev.at) < IdempotencyKeyTTL {
		if prev.fingerprint != fp {
			return newProblem(http.StatusUnprocessableEntity, "idempotency_key_reused", "Idempotency-Key reused",
				fmt.Sprintf("Idempotency-Key %q was first used at %s with a different request; send a new key for a new request, or the identical body to retry",
					key, prev.at.UTC().Format(api.WebhookTimeLayout)))
		}
		w.Header().Set(HeaderIdempotentReplayed, "true")
		writeRawJSON(w, prev.status, prev.body)
		return nil
	}
	status, v, err := create()
	if err != nil {
		return err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	st.puts++
	if st.puts%256 == 0 {
		for k, e := range st.m {
			if now.Sub(e.at) >= IdempotencyKeyTTL {
				delete(st.m, k)
			}
		}
	}
	st.m[key] = &storedResponse{fingerprint: fp, status: status, body: out, at: now}
	w.Header().Set(HeaderIdempotentReplayed, "false")
	writeRawJSON(w, status, out)
	return nil
}
