// Package headless holds the commands that work without the dashboard,
// for scripts and cron jobs: `config` (init, show, check), `balances`,
// `transactions`, `payout create` (main adds `payout batch`), `payouts
// log`, `payment create`, `mandate create` and `events tail`. Each is
// exported as a cobra command; results go to stdout, with --json on each.
//
// A client: it may import api, config, cmdutil, internal/payout,
// internal/report, internal/platform leaves and the relay's and the hub's
// client packages; never a server or a store.
package headless
