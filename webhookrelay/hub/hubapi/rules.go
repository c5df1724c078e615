package hubapi

import "slices"

// Decidable reports whether name could approve or reject r now, as far as
// the request says: it is pending, not name's own, and not approved by
// name already. (Holding the approve role is the caller's to know: Me.)
// The hub refuses each of the others; clients ask this before asking it.
func Decidable(r *Request, name string) bool {
	return r.Status == StatusPending && r.RequestedBy != name && !slices.Contains(r.ApprovedBy, name)
}

// AwaitingYou counts the requests that name, an approver, could decide
// now (Decidable), a batch once: what "N await your approval" says. It
// is 0 for someone without the approve role.
func AwaitingYou(rs []Request, name string, approver bool) int {
	if !approver {
		return 0
	}
	n := 0
	batches := map[string]bool{}
	for i := range rs {
		r := &rs[i]
		if !Decidable(r, name) {
			continue
		}
		if r.Batch != "" {
			if batches[r.Batch] {
				continue
			}
			batches[r.Batch] = true
		}
		n++
	}
	return n
}
