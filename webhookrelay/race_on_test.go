//go:build race

package webhookrelay

// raceEnabled lets tests that verify many P-521 signatures send fewer
// under the race detector, which slows pure-Go field arithmetic ~10x.
const raceEnabled = true
