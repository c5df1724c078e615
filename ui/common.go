package ui

import (
	"reflect"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

type flashMsg struct {
	text string
	err  bool
}

// staticCursor stops a text input's cursor from blinking: the blink is a
// timer command per keystroke, which costs redraws and buys nothing here.
func staticCursor(ti *textinput.Model) {
	ti.Cursor.SetMode(cursor.CursorStatic)
}

// listNav is the cursor and scroll offset of a list view.
type listNav struct {
	cursor, top int
}

// move handles the navigation keys; it reports whether k was one.
func (l *listNav) move(k tea.KeyMsg, g *keyMap, n, h int) bool {
	switch {
	case key.Matches(k, g.Up):
		l.cursor--
	case key.Matches(k, g.Down):
		l.cursor++
	case key.Matches(k, g.PgUp):
		l.cursor -= max(h-1, 1)
	case key.Matches(k, g.PgDown):
		l.cursor += max(h-1, 1)
	case key.Matches(k, g.HalfUp):
		l.cursor -= max(h/2, 1)
	case key.Matches(k, g.HalfDown):
		l.cursor += max(h/2, 1)
	case key.Matches(k, g.Top):
		l.cursor = 0
	case key.Matches(k, g.Bottom):
		l.cursor = n - 1
	default:
		return false
	}
	l.clamp(n, h)
	return true
}

// clamp keeps the cursor on a row and in the window of h rows.
func (l *listNav) clamp(n, h int) {
	if n <= 0 {
		l.cursor, l.top = 0, 0
		return
	}
	l.cursor = min(max(l.cursor, 0), n-1)
	if h <= 0 {
		return
	}
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+h {
		l.top = l.cursor - h + 1
	}
	l.top = min(max(l.top, 0), max(n-h, 0))
}

// formMsg tags a message produced by a form's command, so it reaches the
// form that asked for it even if the user switched tabs meanwhile (huh's
// internal messages, such as "next field", carry no form identity).
type formMsg struct {
	tab tab
	msg tea.Msg
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

// cursorBlinkPC identifies the cursor's blink command (one function
// literal, so one code address). Form inputs would otherwise schedule a
// timer and a redraw twice a second forever; dropping it leaves the cursor
// steadily visible, like the dashboard's own inputs. Computed once; never
// changed.
var cursorBlinkPC = func() uintptr {
	c := cursor.New()
	cmd := c.Focus()
	if cmd == nil {
		return 0
	}
	return reflect.ValueOf(cmd).Pointer()
}()

func isCursorBlink(cmd tea.Cmd) bool {
	return cursorBlinkPC != 0 && reflect.ValueOf(cmd).Pointer() == cursorBlinkPC
}

// tagCmd wraps cmd so every message it produces, including those of
// batched and sequenced sub-commands, arrives as formMsg{t, msg}.
func tagCmd(t tab, cmd tea.Cmd) tea.Cmd {
	if cmd == nil || isCursorBlink(cmd) {
		return nil
	}
	return func() tea.Msg {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make([]tea.Cmd, len(msg))
			for i, c := range msg {
				out[i] = tagCmd(t, c)
			}
			return tea.BatchMsg(out)
		case tea.QuitMsg:
			return msg
		}
		// tea.Sequence's message type is unexported; it is a []tea.Cmd
		// that the program runs in order, so it is rebuilt with tagged
		// commands through tea.Sequence itself.
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			out := make([]tea.Cmd, v.Len())
			for i := range out {
				c, _ := v.Index(i).Interface().(tea.Cmd)
				out[i] = tagCmd(t, c)
			}
			if seq := tea.Sequence(out...); seq != nil {
				return seq()
			}
			return nil
		}
		return formMsg{tab: t, msg: msg}
	}
}
