//go:build !race

package webhookrelay

const raceEnabled = false
