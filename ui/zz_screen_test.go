//go:build screen

package ui

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
)

func TestZZScreen(t *testing.T) {
	cmd := exec.Command("/tmp/paydash", "demo", "--history", "200000")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "TERM=xterm-256color", "COLORTERM=truecolor")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	term := vt10x.New(vt10x.WithSize(120, 40))
	go func() {
		buf := make([]byte, 65536)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				term.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	snap := func(name string) {

		s := term.String()

		os.WriteFile("/tmp/scr/"+name+".txt", []byte(s), 0o644)
	}
	steps := []struct{ keys, name string; wait time.Duration }{
		{"", "00-start", 6 * time.Second},
		{"2", "01-report", 3 * time.Second},
		{"/hopper", "02-filter", 2 * time.Second},
		{"\r\r", "03-detail", 1 * time.Second},
		{"4", "04-events", 1 * time.Second},
		{"3", "05-payouts", 1 * time.Second},
		{"5", "06-form", 1 * time.Second},
		{"\x1b[B\r", "07-gbp", 500 * time.Millisecond},
		{"Ada Lovelace\r", "08", 300 * time.Millisecond},
		{"GB33BUKB20201555555555\r", "09", 300 * time.Millisecond},
		{"REF-1\r", "10", 300 * time.Millisecond},
		{"12.34\r", "11", 300 * time.Millisecond},
		{"\r", "12-confirm", 500 * time.Millisecond},
		{"y", "13-sent", 2 * time.Second},
		{"3", "14-tracker", 3 * time.Second},
		{"1", "15-balances", 1 * time.Second},
		{"?", "16-help", 1 * time.Second},
	}
	for _, s := range steps {
		if s.keys != "" {
			f.Write([]byte(s.keys))
		}
		time.Sleep(s.wait)
		snap(s.name)
	}
	f.Write([]byte("\x03"))
	time.Sleep(time.Second)
	f.Write([]byte("y"))
	cmd.Process.Kill()
	_ = strings.TrimSpace
}
