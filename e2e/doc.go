// Package e2e drives the built paydash binary as a person would: in a
// pseudo-terminal read through a terminal emulator, and as a child
// process of scripts. Everything runs on loopback with bounded waits.
//
// It is tests only, and so may import anything a test needs; this file
// holds no code, only this doc. The binary it drives is built from
// main.go once per run (TestMain).
package e2e
