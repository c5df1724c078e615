package ui

import "github.com/charmbracelet/bubbles/key"

// A read-only profile (Options.ReadOnly, decided by the CLI's factory)
// sends nothing: the three forms are not offered (no tab, no key, no
// ':payout'), and the actions that send (correct and resend a payout,
// approve or reject on the hub) are neither shown in the footer, the
// help or the actions menu, nor run by their keys. The views that read
// (balances, the report, the tracker, events) are unchanged.

// sends reports whether the profile may send anything.
func (c *viewContext) sends() bool { return c.opts.ReadOnly == "" }

// isForm reports whether t is one of the three forms.
func isForm(t tab) bool { return t == tabPayout || t == tabPayment || t == tabMandate }

// offered reports whether the view t is offered on this profile: the
// forms only where it may send, Approvals only in team mode.
func (c *viewContext) offered(t tab) bool {
	switch {
	case isForm(t):
		return c.sends()
	case t == tabApprovals:
		return c.teamMode()
	}
	return true
}

// readOnlyNote is what the status line says when something that sends
// is asked for on a read-only profile: the factory's sentence.
func (c *viewContext) readOnlyNote() string {
	return c.opts.ReadOnly
}

// withoutForms makes the view keys' help name only the views offered
// (1-4, and 8 in team mode); 5-7 still answer, saying why there is no
// form.
func (k *keyMap) withoutForms(team bool) {
	help, alt := "1-4", "alt+1-4"
	if team {
		help, alt = "1-4/8", "alt+1-4/8"
	}
	k.Tabs = key.NewBinding(key.WithKeys(k.Tabs.Keys()...), key.WithHelp(help, k.Tabs.Help().Desc))
	k.AltTabs = key.NewBinding(key.WithKeys(k.AltTabs.Keys()...), key.WithHelp(alt, k.AltTabs.Help().Desc))
}

// commandList is the ':' commands help and the status line name: the
// forms' only where they are offered.
func (c *viewContext) commandList() string {
	views := " :view NAME :save NAME :columns a,b,c"
	if !c.sends() {
		return ":balances :transactions :payouts :events :profile NAME" + views + " :quit"
	}
	return ":balances :transactions :payouts :events :payout :payment :mandate :profile NAME" + views + " :quit"
}
