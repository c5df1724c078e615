package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// SwitchProfile is what Run returns when the operator switched profile
// with :profile NAME (or :ctx NAME, as in k9s): the command opens the
// dashboard again on Name, without going back to the shell.
type SwitchProfile struct{ Name string }

func (e *SwitchProfile) Error() string { return "switch to profile " + e.Name }

// ProfileInfo is what the dashboard needs to know of a profile before
// switching to it.
type ProfileInfo struct {
	Name       string
	Production bool
}

// profileSwitch is a switch asked for and checked, waiting for y: the
// same question as quitting when a form holds unsent input, and the
// production warning the banner gives when the profile moves real money.
type profileSwitch struct {
	to     ProfileInfo
	unsent []string
}

// profileCheckedMsg is the host's answer about a profile named on the
// command line.
type profileCheckedMsg struct {
	info ProfileInfo
	err  error
}

// askProfile starts a switch: the host checks the profile off the Update
// path (it reads the config file).
func (m *model) askProfile(name string) tea.Cmd {
	name = strings.TrimSpace(name)
	switch {
	case m.opts.CheckProfile == nil:
		m.setFlash("this dashboard runs on one profile only (no config file to switch in)", true)
		return nil
	case name == "":
		m.setFlash("usage: :profile NAME (or :ctx NAME) switches profile; this is "+m.opts.Profile, true)
		return nil
	case name == m.opts.Profile:
		m.setFlash("already on profile "+name, false)
		return nil
	}
	check := m.opts.CheckProfile
	return func() tea.Msg {
		info, err := check(name)
		if info.Name == "" {
			info.Name = name
		}
		return profileCheckedMsg{info: info, err: err}
	}
}

// profileChecked asks for the switch, or says why it cannot be made.
func (m *model) profileChecked(msg profileCheckedMsg) tea.Cmd {
	if msg.err != nil {
		m.setFlash("profile "+msg.info.Name+": "+msg.err.Error(), true)
		return nil
	}
	sw := &profileSwitch{to: msg.info, unsent: m.unsentForms()}
	if !sw.to.Production && len(sw.unsent) == 0 {
		return m.switchNow(sw.to.Name)
	}
	m.switchAsk = sw
	return nil
}

// switchNow ends this program so the command opens the next profile.
func (m *model) switchNow(name string) tea.Cmd {
	m.switchTo = name
	return tea.Quit
}

// updateSwitchAsk handles y and n while the switch waits for them.
func (m *model) updateSwitchAsk(k tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.SwitchYes):
		name := m.switchAsk.to.Name
		m.switchAsk = nil
		return m.switchNow(name)
	case key.Matches(k, m.keys.SwitchNo):
		m.switchAsk = nil
	}
	return nil
}

// switchAskView is the question, with what switching would cost.
func (m *model) switchAskView(h int) string {
	sw := m.switchAsk
	var b strings.Builder
	b.WriteString("Switch to profile " + m.st.bold.Render(sw.to.Name) + "?\n")
	if sw.to.Production {
		b.WriteString("\n" + m.st.prod.Render(" PRODUCTION ") + " " + m.st.warn.Render("profile "+sw.to.Name+" moves real money") + "\n")
	}
	if len(sw.unsent) > 0 {
		b.WriteString("\n" + m.st.warn.Render("Unsent input in: "+strings.Join(sw.unsent, ", ")+" is lost") + "\n")
	}
	b.WriteString("\n" + hints(m.keys.SwitchYes, m.keys.SwitchNo))
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.st.box.Render(b.String()))
}

// switchedTo is the profile the program ended to switch to ("" when it
// quit).
func switchedTo(final tea.Model) error {
	if fm, ok := final.(*model); ok && fm.switchTo != "" {
		return &SwitchProfile{Name: fm.switchTo}
	}
	return nil
}
