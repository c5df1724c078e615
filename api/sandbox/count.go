package sandbox

// CountPayments counts the single payments the sandbox created whose
// metadata holds key = value; CountMandates the mandates. They are the
// sandbox's own records of what it was really asked to create (a request
// repeated under its idempotency key creates nothing new), which is what
// a test counts a send by.
func (s *Sandbox) CountPayments(key, value string) int { return s.flows.count(kindPayment, key, value) }

// CountMandates counts the mandates created with metadata key = value.
func (s *Sandbox) CountMandates(key, value string) int { return s.flows.count(kindMandate, key, value) }

func (fs *flowStore) count(k flowKind, key, value string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := 0
	for _, f := range fs.flows[k] {
		if v, ok := f.metadata[key]; ok && v == value {
			n++
		}
	}
	return n
}
