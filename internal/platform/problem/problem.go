// Package problem writes the JSON body the relay and the hub answer every
// refusal with: {"status", "reason", "detail"}, the status repeated, a
// short machine-readable reason a client switches on, and a detail for a
// person saying what was wrong and what to do. It is the shape of an RFC
// 9457 problem document with paydash's own member names, served as
// application/json and never cached. It imports nothing of paydash.
package problem

import (
	"encoding/json"
	"net/http"
)

// Body is a refusal's JSON body.
type Body struct {
	Status int    `json:"status"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// Write answers with status and a Body of reason and detail.
func Write(w http.ResponseWriter, status int, reason, detail string) {
	WriteJSON(w, status, Body{Status: status, Reason: reason, Detail: detail})
}

// WriteJSON answers with status and v as JSON, uncached: what the relay
// and the hub send, refusals (a Body, or a richer type of the same
// members) and answers alike.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
