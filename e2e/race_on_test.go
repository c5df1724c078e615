//go:build race

package e2e

// raceEnabled: the tests run under -race, so the binary is built with the
// race detector too; it then shares the build cache with the tests and
// any data race in the real program fails its exit status (66).
const raceEnabled = true
