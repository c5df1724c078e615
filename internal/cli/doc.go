// Package cli is the home of paydash's commands: cobra only, one folder
// per command group, mirroring the command tree that main.go assembles.
// It holds no code of its own.
//
//   - cmdutil: what every command shares (streams, output, prompts, exit
//     codes, the profile);
//   - headless: the commands that work without the dashboard;
//   - batch: `payout batch`;
//   - approvals: team mode's commands;
//   - dashboard: the dashboard on a profile;
//   - devtools: the webhook workbench;
//   - serve: the servers (`paydash relay`, `paydash sandbox`);
//   - demo: `paydash demo`, everything in-process.
//
// Commands may import ui, internal/payout, internal/report, config, api,
// internal/platform and the client packages of the relay, the hub and the
// sandbox. Only the server commands (serve, demo) link a server or a
// store. Outside internal/cli only main imports a command.
package cli
