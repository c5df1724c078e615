package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
)

// bin is the paydash binary built once for the whole package.
var bin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "paydash-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "paydash")
	// go test puts the running toolchain's bin first on PATH (Go 1.19+),
	// so "go" is the toolchain that runs the tests (runtime.GOROOT is
	// deprecated).
	goTool := "go"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The module root is the parent of this package's directory.
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.CommandContext(ctx, goTool, append(args, "..")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building paydash:", err)
		return 1
	}
	return m.Run()
}

// isolatedEnv is a child environment with its own home, config and state
// directories, so no developer's real profile or state is touched, and
// nothing from the developer's shell (PAYDASH_*) leaks in.
func isolatedEnv(t testing.TB, extra ...string) []string {
	t.Helper()
	root := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"TZ=UTC",
	}
	return append(env, extra...)
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// screen is a child process on a pseudo-terminal whose output feeds a
// vt10x terminal emulator, so tests read exactly what a person would see.
type screen struct {
	t    testing.TB
	cmd  *exec.Cmd
	pty  *os.File
	mu   sync.Mutex
	vt   vt10x.Terminal
	raw  bytes.Buffer // the last output, for failure reports
	done chan struct{}
	err  error // the process's exit error, once done is closed
}

const cols, rows = 120, 40

func startScreen(t testing.TB, env []string, args ...string) *screen {
	t.Helper()
	return startScreenCmd(t, env, exec.Command(bin, args...))
}

// startScreenCmd is startScreen for a command line of the caller's (the
// binary under taskset, say).
func startScreenCmd(t testing.TB, env []string, cmd *exec.Cmd) *screen {
	t.Helper()
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		t.Fatalf("start paydash in a pty: %v", err)
	}
	s := &screen{t: t, cmd: cmd, pty: f, done: make(chan struct{})}
	// The emulator answers the program's terminal queries (cursor
	// position) through the pty, as a real terminal does.
	s.vt = vt10x.New(vt10x.WithSize(cols, rows), vt10x.WithWriter(f))
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				s.mu.Lock()
				_, _ = s.vt.Write(buf[:n])
				s.raw.Write(buf[:n])
				if s.raw.Len() > 256<<10 {
					s.raw.Next(s.raw.Len() - 128<<10)
				}
				s.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		<-readDone
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-s.done
		}
		f.Close()
	})
	return s
}

// text is the screen as it is now, one line per row.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vt.String()
}

// waitFor polls the screen until ok accepts it, failing the test with the
// last screen when the deadline passes or the program exits.
func (s *screen) waitFor(what string, timeout time.Duration, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		txt := s.text()
		if ok(txt) {
			return txt
		}
		select {
		case <-s.done:
			s.t.Fatalf("paydash exited (%v) while waiting for %s; last screen:\n%s", s.err, what, txt)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", timeout, what, txt)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *screen) waitText(timeout time.Duration, want ...string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", want), timeout, func(txt string) bool {
		for _, w := range want {
			if !strings.Contains(txt, w) {
				return false
			}
		}
		return true
	})
}

// line returns the first screen line containing all of want.
func line(txt string, want ...string) (string, bool) {
	for _, l := range strings.Split(txt, "\n") {
		all := true
		for _, w := range want {
			if !strings.Contains(l, w) {
				all = false
				break
			}
		}
		if all {
			return l, true
		}
	}
	return "", false
}

// press types keys as a person would; a short pause between keystrokes
// lets the program see them as separate key presses.
func (s *screen) press(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(s.pty, k); err != nil {
			s.t.Fatalf("type %q: %v", k, err)
		}
		time.Sleep(60 * time.Millisecond)
	}
}

// typeText types a string in one write, like a paste of typed text.
func (s *screen) typeText(text string) {
	s.t.Helper()
	for _, r := range text {
		if _, err := io.WriteString(s.pty, string(r)); err != nil {
			s.t.Fatalf("type %q: %v", text, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(60 * time.Millisecond)
}

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyDown  = "\x1b[B"
)

// wait waits for the process to exit and returns its exit code.
func (s *screen) wait(timeout time.Duration) int {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(timeout):
		s.t.Fatalf("paydash did not exit within %s; screen:\n%s", timeout, s.text())
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		s.t.Fatalf("paydash: %v", s.err)
	}
	return 0
}

// notListening checks that nothing accepts connections on addr any more.
func notListening(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		t.Errorf("%s is still listening after paydash exited", addr)
	}
}

// runCLI runs a headless command to completion and returns its stdout,
// stderr and exit code.
func runCLI(t *testing.T, env []string, timeout time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("paydash %s: did not finish within %s\nstderr: %s", strings.Join(args, " "), timeout, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("paydash %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}
