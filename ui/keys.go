package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyMap is every binding of the dashboard, built once. Dispatch matches
// against it (key.Matches) and help is drawn from it, so what help says is
// what the keys do.
type keyMap struct {
	// The frame.
	Tabs     key.Binding
	AltTabs  key.Binding
	ViewNext key.Binding
	ViewPrev key.Binding
	Command  key.Binding
	// Views opens the saved views' picker (as :view does).
	Views     key.Binding
	Filter    key.Binding
	Help      key.Binding
	Refresh   key.Binding
	Quit      key.Binding
	ForceQuit key.Binding
	Yes       key.Binding
	No        key.Binding
	Complete  key.Binding

	// Lists.
	Up     key.Binding
	Down   key.Binding
	PgUp   key.Binding
	PgDown key.Binding
	// HalfUp and HalfDown move half a page (ctrl+u, ctrl+d as in less and vim).
	HalfUp   key.Binding
	HalfDown key.Binding
	// Actions opens the menu of what can be done to the selected row.
	Actions key.Binding
	// MenuRun and MenuClose work the actions menu.
	MenuRun   key.Binding
	MenuClose key.Binding
	Top       key.Binding
	Bottom    key.Binding
	Enter     key.Binding
	Back      key.Binding

	// Filter bar and command line.
	Accept     key.Binding
	Clear      key.Binding
	RunCommand key.Binding
	CloseLine  key.Binding

	// The help overlay and the quit question.
	CloseHelp key.Binding
	QuitYes   key.Binding
	QuitNo    key.Binding
	SwitchYes key.Binding
	SwitchNo  key.Binding

	// Balances.
	OpenAccount key.Binding
	CopyIBAN    key.Binding
	Range       key.Binding

	// Transactions.
	Reload   key.Binding // the whole report again (r refreshes only what is new)
	Sort     key.Binding
	Reverse  key.Binding
	Date     key.Binding
	Type     key.Binding
	Currency key.Binding
	Status   key.Binding
	Detail   key.Binding
	Export   key.Binding
	CopyRow  key.Binding
	CopyID   key.Binding
	CSV      key.Binding
	JSON     key.Binding
	Track    key.Binding

	// Tracker.
	CopyPayout key.Binding
	CopyReason key.Binding

	// Events.
	Follow    key.Binding
	EventType key.Binding
	OpenEvent key.Binding
	CopyBody  key.Binding
	// The webhook workbench (events_workbench.go); R and T are capitals
	// so they are never pressed by accident.
	FailedOnly  key.Binding
	Resend      key.Binding
	Trigger     key.Binding
	CopyHeaders key.Binding
	// Search is the open event's search: the Filter key, named for what
	// it does there (it follows Filter when that is remapped).
	Search key.Binding
	// NextMatch's first key goes to the next match, its others to the
	// previous one.
	NextMatch key.Binding

	// Forms.
	Next      key.Binding
	Prev      key.Binding
	LeaveForm key.Binding
	ClearForm key.Binding
	Retry     key.Binding
	// The confirmation at the end of a form.
	ConfirmSend   key.Binding
	ConfirmBack   key.Binding
	ConfirmChoose key.Binding
	ConfirmEnter  key.Binding
	// SendAnyway is the second confirmation of a possible duplicate.
	SendAnyway key.Binding
	Edit       key.Binding
	// Correct fills a payout rejected after acceptance in again.
	Correct   key.Binding
	NewForm   key.Binding
	CopyResID key.Binding
	CopyToken key.Binding

	// Approvals (team mode).
	Approve        key.Binding
	Reject         key.Binding
	SendDecision   key.Binding
	CancelDecision key.Binding
}

func newKeyMap() *keyMap {
	return &keyMap{
		Tabs:      kb("1-7", "views", "1", "2", "3", "4", "5", "6", "7"),
		AltTabs:   kb("alt+1-7", "views (forms too)", "alt+1", "alt+2", "alt+3", "alt+4", "alt+5", "alt+6", "alt+7"),
		ViewNext:  kb("]/tab", "next view", "]", "tab"),
		ViewPrev:  kb("[/shift+tab", "previous view", "[", "shift+tab"),
		Command:   kb(":", "command", ":"),
		Views:     kb("v", "saved views", "v"),
		Filter:    kb("/", "filter", "/"),
		Help:      kb("?", "help", "?"),
		Refresh:   kb("r", "refresh", "r"),
		Quit:      kb("q", "quit", "q", "ctrl+c"),
		ForceQuit: kb("ctrl+c", "quit", "ctrl+c"),
		Yes:       kb("y", "yes", "y", "Y"),
		No:        kb("n/esc", "no", "n", "N", "esc"),
		Complete:  kb("tab", "complete", "tab"),

		Up:        kb("↑/k", "up", "up", "k"),
		Down:      kb("↓/j", "down", "down", "j"),
		PgUp:      kb("pgup", "page up", "pgup", "ctrl+b"),
		PgDown:    kb("pgdn", "page down", "pgdown", "ctrl+f"),
		HalfUp:    kb("ctrl+u", "half page up", "ctrl+u"),
		HalfDown:  kb("ctrl+d", "half page down", "ctrl+d"),
		Actions:   kb("space", "actions", " "),
		MenuRun:   kb("enter", "run", "enter"),
		MenuClose: kb("esc/space", "close", "esc", " "),
		Top:       kb("g", "top", "home", "g"),
		Bottom:    kb("G", "bottom", "end", "G"),
		Enter:     kb("enter", "details", "enter"),
		Back:      kb("esc", "back", "esc"),

		Accept:     kb("enter", "keep", "enter"),
		Clear:      kb("esc", "clear", "esc"),
		RunCommand: kb("enter", "run", "enter"),
		CloseLine:  kb("esc", "cancel", "esc"),

		CloseHelp: kb("?/esc", "close help", "?", "esc", "q", "enter"),
		QuitYes:   kb("y", "quit", "y", "Y", "ctrl+c"),
		QuitNo:    kb("n/esc", "stay", "n", "N", "esc"),
		SwitchYes: kb("y", "switch", "y", "Y"),
		SwitchNo:  kb("n/esc", "stay", "n", "N", "esc"),

		OpenAccount: kb("enter", "account detail", "enter"),
		CopyIBAN:    kb("y", "copy IBAN", "y"),
		Range:       kb("h", "history 30/90 days", "h"),

		Sort:     kb("s", "sort by next column", "s"),
		Reverse:  kb("S", "reverse sort", "S"),
		Reload:   kb("R", "reload the whole report", "R"),
		Date:     kb("d", "date: today/7d/30d/all", "d"),
		Type:     kb("t", "type filter", "t"),
		Currency: kb("c", "currency filter", "c"),
		Status:   kb("u", "status filter", "u"),
		Detail:   kb("enter", "detail pane", "enter"),
		Export:   kb("ctrl+s", "export shown rows (csv/json)", "ctrl+s"),
		CopyRow:  kb("y", "copy row (JSON)", "y"),
		CopyID:   kb("Y", "copy id", "Y"),
		CSV:      kb("c", "CSV", "c", "C"),
		JSON:     kb("j", "JSON", "j", "J"),
		Track:    kb("p", "follow payout in "+tabKeyName(tabPayouts), "p"),

		CopyPayout: kb("y", "copy payout id", "y"),
		CopyReason: kb("Y", "copy reason", "Y"),

		Follow:    kb("f", "follow / pause", "f"),
		EventType: kb("t", "filter by type", "t"),
		OpenEvent: kb("enter", "open event", "enter"),
		CopyBody:  kb("y", "copy body", "y"),

		FailedOnly:  kb("x", "only failed forwards", "x"),
		Resend:      kb("R", "resend to the handler", "R"),
		Trigger:     kb("T", "trigger (demo)", "T"),
		CopyHeaders: kb("Y", "copy headers", "Y"),
		Search:      kb("/", "search", "/"),
		NextMatch:   kb("n/N", "next/previous match", "n", "N"),

		Next:          kb("enter/tab", "next field", "enter", "tab"),
		Prev:          kb("shift+tab", "previous field", "shift+tab"),
		LeaveForm:     kb("esc", "leave (input kept)", "esc"),
		ClearForm:     kb("ctrl+n", "clear form (asks)", "ctrl+n"),
		Retry:         kb("enter", "retry (same key)", "enter"),
		Edit:          kb("e", "edit", "e"),
		ConfirmSend:   kb("y", "send", "y", "Y"),
		ConfirmBack:   kb("n", "back to edit", "n", "N"),
		ConfirmChoose: kb("←/→", "choose", "left", "right", "h", "l"),
		ConfirmEnter:  kb("enter", "highlighted choice", "enter"),
		Correct:       kb("e", "correct and resend", "e"),
		SendAnyway:    kb("a", "send anyway (a second payment)", "a"),
		NewForm:       kb("n", "new form", "n", "ctrl+n"),
		CopyResID:     kb("y", "copy id", "y"),
		CopyToken:     kb("t", "copy resource token", "t"),

		Approve:        kb("a", "approve", "a"),
		Reject:         kb("x", "reject (with a reason)", "x"),
		SendDecision:   kb("enter", "send to the hub", "enter"),
		CancelDecision: kb("esc", "cancel", "esc"),
	}
}

// withApprovalsTab adds the Approvals view's number to the view keys: a
// team profile has an eighth view.
func (k *keyMap) withApprovalsTab() {
	k.Tabs = kb("1-8", "views", "1", "2", "3", "4", "5", "6", "7", "8")
	k.AltTabs = kb("alt+1-8", "views (forms too)", "alt+1", "alt+2", "alt+3", "alt+4", "alt+5", "alt+6", "alt+7", "alt+8")
}

// tabKey is the view a tab key (1-8 or alt+1-8) names.
func tabKey(k tea.KeyMsg) tab {
	s := strings.TrimPrefix(k.String(), "alt+")
	if len(s) != 1 || s[0] < '1' || s[0] > '0'+byte(numTabs) {
		return -1
	}
	return tab(s[0] - '1')
}

// helpMap adapts a view's bindings to bubbles/help.
type helpMap struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpMap) ShortHelp() []key.Binding  { return h.short }
func (h helpMap) FullHelp() [][]key.Binding { return h.full }

func kb(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}
