package cmdutil

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mattn/go-isatty"
	"github.com/mattn/go-runewidth"

	"github.com/paydash/paydash/internal/platform/termtext"
)

// Streams are a command's standard input, output and error, with whether
// each is a terminal.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	InTerminal  bool
	OutTerminal bool
	ErrTerminal bool

	// Trace, when set (--debug), receives every HTTP exchange with the
	// service, secrets redacted (internal/platform/httptrace).
	Trace io.Writer

	// Getenv reads the environment; nil means os.Getenv. Tests and the
	// end-to-end harness pass their own so nothing leaks in from the
	// developer's shell.
	Getenv func(string) string

	// Done, when set, ends a ReadLine waiting at a prompt with
	// ErrCancelled: ctrl+c cancels the command's context, but a read of
	// the terminal does not return by itself, and the answer typed after
	// it must not be taken.
	Done <-chan struct{}

	in *bufio.Reader
}

// System returns the process's own streams.
func System() *Streams {
	return &Streams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTerminal:  isTerminal(os.Stdin),
		OutTerminal: isTerminal(os.Stdout),
		ErrTerminal: isTerminal(os.Stderr),
		Getenv:      os.Getenv,
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Env reads an environment variable through Getenv.
func (s *Streams) Env(key string) string {
	if s.Getenv == nil {
		return os.Getenv(key)
	}
	return s.Getenv(key)
}

// Interactive reports whether a person can answer a prompt: both stdin and
// stderr (where prompts are written) are terminals.
func (s *Streams) Interactive() bool { return s.InTerminal && s.ErrTerminal }

// ReadLine reads one line from In without its line ending. A single
// buffered reader is kept so successive prompts do not lose input.
func (s *Streams) ReadLine() (string, error) {
	if s.in == nil {
		s.in = bufio.NewReader(s.In)
	}
	if s.Done == nil {
		return s.readLine()
	}
	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := s.readLine()
		got <- answer{line, err}
	}()
	select {
	case a := <-got:
		return a.line, a.err
	case <-s.Done:
		return "", ErrCancelled
	}
}

func (s *Streams) readLine() (string, error) {
	line, err := s.in.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// WriteJSON writes v as indented JSON followed by a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// WriteTable writes rows under a header as aligned columns. Columns whose
// index is in right are right-aligned (amounts line up on the decimal
// point that way).
//
// Every cell is shown through termtext.Safe: cells hold names,
// references and states from the service, CSV files and records, which
// must not drive the terminal they are printed on.
func WriteTable(w io.Writer, header []string, rows [][]string, right ...int) error {
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = make([]string, len(r))
		for j, c := range r {
			safe[i][j] = termtext.Safe(c)
		}
	}
	rows = safe
	isRight := map[int]bool{}
	for _, i := range right {
		isRight[i] = true
	}
	widths := make([]int, len(header))
	measure := func(r []string) {
		for i, c := range r {
			if i < len(widths) && displayWidth(c) > widths[i] {
				widths[i] = displayWidth(c)
			}
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	bw := bufio.NewWriter(w)
	line := func(r []string) {
		var b strings.Builder
		for i := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", widths[i]-displayWidth(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if isRight[i] {
				b.WriteString(pad + c)
			} else if i < len(widths)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		// A bufio.Writer keeps its first error and Flush returns it.
		_, _ = bw.WriteString(strings.TrimRight(b.String(), " "))
		_ = bw.WriteByte('\n')
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// displayWidth is the column width of s on a terminal: amounts carry "£"
// and "€" (one column, several bytes) and names may be wide CJK.
func displayWidth(s string) int { return runewidth.StringWidth(s) }

// KeyValues writes "key: value" lines aligned on the colon, for summaries.
// Values are shown through termtext.Safe: they hold payee names and what
// the service answered (ids, statuses, tokens).
func KeyValues(w io.Writer, pairs [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, p := range pairs {
		fmt.Fprintf(tw, "  %s:\t%s\n", p[0], termtext.Safe(p[1]))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// WriteCompactJSON writes v as one line of JSON, for output a program
// reads line by line (a server's start-up record).
func WriteCompactJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
