// Package devtools holds the webhook workbench commands for developers
// writing a webhook handler: `events resend`, `events show`, `events
// missing` and `sandbox trigger`. Each is exported as a cobra command.
package devtools
