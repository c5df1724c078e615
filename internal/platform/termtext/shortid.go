package termtext

// shortIDLen is how much of an id a one-line message shows; the full id
// is a keystroke away in the detail views.
const shortIDLen = 8

// ShortID is an id for a one-line message: made Safe, then its first 8
// characters (runes, never half of one) and "…" when it was longer. The
// dashboard's status line and the relay client's event summaries cut ids
// the same way.
func ShortID(id string) string {
	id = Safe(id)
	if r := []rune(id); len(r) > shortIDLen {
		return string(r[:shortIDLen]) + "…"
	}
	return id
}
