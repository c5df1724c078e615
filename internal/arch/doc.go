// Package arch holds the layering test: the import rules of the
// architecture (README, "Architecture"), checked against `go list` on
// every `go test ./...`, short or not, so that a rule broken in a commit
// fails that commit rather than waiting for a reader to notice.
//
// The rules, all on the direct imports of non-test code (test files may
// import anything):
//   - imports point down: main -> internal/cli -> ui -> (internal/payout,
//     internal/report, the relay's and the hub's client packages, config,
//     the servers) -> api -> internal/platform;
//   - a client (ui, config, internal/payout, internal/report, and every
//     command but the server commands) imports, of webhookrelay/... and
//     api/sandbox/..., only the client packages: relayclient, webhooklate,
//     hub/hubapi, hub/hubclient and sandbox/sandboxapi;
//   - api/sandbox, the sandbox server, is imported only by the server
//     commands (internal/cli/serve, internal/cli/demo) and by test
//     helper packages (named <pkg>test);
//   - internal/platform/... imports nothing of paydash outside itself;
//   - no two subsystem folders import each other, directly or round a
//     longer loop.
//
// Beside it, TestEveryPackageSaysWhatItIs holds that every package has a
// doc comment and every subsystem folder a doc.go saying what it owns and
// what it may import. The package has no code of its own and nothing may
// import it.
package arch
