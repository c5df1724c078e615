package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/internal/platform/termtext"
)

// This file gives every command that prints --json two filters, as gh
// does: --json=FIELD,… keeps only those fields, and --jq EXPR runs a jq
// expression (gojq) over the output. They are added to the whole tree
// once, after it is built, and work on what the command writes rather
// than inside each command: a command only ever writes JSON values (one
// document, or one per line while it streams), and the filter reads them
// one after another from a pipe as they are written, so `events tail
// --json --jq …` filters live.

// AddJSONFilters adds --jq to every command of root's tree that has a
// --json flag, and lets that --json take a field list. It returns finish,
// which must be called after the command has returned: it waits for the
// filter to write what it holds and returns the filter's own error (an
// unknown field, a jq runtime error), which is the cause of any write
// error the command saw.
func AddJSONFilters(root *cobra.Command, s *Streams) (finish func() error) {
	f := &jsonFilter{s: s}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if fl := c.LocalFlags().Lookup("json"); fl != nil && fl.Value.Type() == "bool" {
			f.add(c, fl)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return f.finish
}

type jsonFilter struct {
	s      *Streams
	expr   string
	fields []string
	// set while a filter runs
	pw   *io.PipeWriter
	done chan error
	once sync.Once
}

// fieldsValue is a --json flag that still reads as a bool (--json,
// --json=true) but also takes --json=a,b.
type fieldsValue struct {
	pflag.Value
	fields *[]string
}

func (v fieldsValue) Set(s string) error {
	if _, err := strconv.ParseBool(s); err == nil {
		return v.Value.Set(s)
	}
	*v.fields = nil
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			*v.fields = append(*v.fields, name)
		}
	}
	if len(*v.fields) == 0 {
		return fmt.Errorf("--json=%q names no field", s)
	}
	return v.Value.Set("true")
}

func (f *jsonFilter) add(c *cobra.Command, fl *pflag.Flag) {
	fl.Value = fieldsValue{Value: fl.Value, fields: &f.fields}
	fl.Usage += " (--json=FIELD,… keeps only those fields)"
	c.Flags().StringVar(&f.expr, "jq", "", "filter the JSON output with a jq expression (implies --json; strings print raw)")
	pre, preE := c.PreRun, c.PreRunE
	c.PreRun = nil
	c.PreRunE = func(cmd *cobra.Command, args []string) error {
		if f.expr != "" && !fl.Changed {
			// --jq alone means JSON: set --json as if it had been given.
			if err := fl.Value.Set("true"); err != nil {
				return err
			}
			fl.Changed = true
		}
		if err := f.start(); err != nil {
			return Exit(ExitUsage, err)
		}
		if preE != nil {
			return preE(cmd, args)
		}
		if pre != nil {
			pre(cmd, args)
		}
		return nil
	}
}

// start puts the filter between the command and stdout when there is
// anything to filter.
func (f *jsonFilter) start() error {
	if f.expr == "" && len(f.fields) == 0 {
		return nil
	}
	var code *gojq.Code
	if f.expr != "" {
		q, err := gojq.Parse(f.expr)
		if err != nil {
			return fmt.Errorf("--jq %q: %w", f.expr, err)
		}
		if code, err = gojq.Compile(q); err != nil {
			return fmt.Errorf("--jq %q: %w", f.expr, err)
		}
	}
	out := f.s.Out
	pr, pw := io.Pipe()
	f.pw, f.done = pw, make(chan error, 1)
	f.s.Out = pw
	go func() {
		err := filterJSON(pr, out, f.fields, code, f.s.OutTerminal)
		// A command still writing after a failure gets this error.
		pr.CloseWithError(errFilterStopped)
		f.done <- err
	}()
	return nil
}

var errFilterStopped = errors.New("the --json/--jq filter stopped")

func (f *jsonFilter) finish() error {
	if f.pw == nil {
		return nil
	}
	var err error
	f.once.Do(func() {
		_ = f.pw.Close()
		err = <-f.done
	})
	return err
}

// filterJSON reads JSON values from r one after another and writes each,
// with only fields kept (when given) and through code (when given), to w.
// Without code a value keeps the indented layout the commands print;
// jq's results are one per line, strings raw (as gh --jq prints them);
// onTerminal, a raw string (a payee's name, a service's detail) is shown
// escaped, so it cannot drive the terminal; into a pipe it stays exact.
func filterJSON(r io.Reader, w io.Writer, fields []string, code *gojq.Code, onTerminal bool) error {
	dec := json.NewDecoder(r)
	dec.UseNumber() // amounts are int64 minor units: never through a float
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("the command's output is not JSON to filter: %w", err)
		}
		if len(fields) > 0 {
			var err error
			if v, err = keepFields(v, fields); err != nil {
				return Exit(ExitUsage, err)
			}
		}
		if code == nil {
			if err := WriteJSON(w, v); err != nil {
				return err
			}
			continue
		}
		iter := code.Run(v)
		for {
			res, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := res.(error); ok {
				var halt *gojq.HaltError
				if errors.As(err, &halt) && halt.Value() == nil {
					return nil
				}
				return fmt.Errorf("--jq: %w", err)
			}
			var line []byte
			if str, ok := res.(string); ok {
				if onTerminal {
					str = termtext.Lines(str)
				}
				line = []byte(str)
			} else {
				var err error
				if line, err = gojq.Marshal(res); err != nil {
					return fmt.Errorf("--jq: %w", err)
				}
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return err
			}
		}
	}
}

// keepFields keeps only the named members of an object, or of each
// object of an array. A name that no object has is refused, listing the
// names there are, so a typo is not an empty column.
func keepFields(v any, fields []string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(fields))
		for _, name := range fields {
			if val, ok := t[name]; ok {
				out[name] = val
				continue
			}
			return nil, unknownField(name, t)
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		seen := map[string]bool{}
		for i, el := range t {
			obj, ok := el.(map[string]any)
			if !ok {
				return nil, errors.New("--json=FIELD,…: the output is not a list of objects")
			}
			kept := make(map[string]any, len(fields))
			for _, name := range fields {
				if val, ok := obj[name]; ok {
					kept[name] = val
					seen[name] = true
				}
			}
			out[i] = kept
		}
		for _, name := range fields {
			if !seen[name] && len(t) > 0 {
				return nil, unknownField(name, t[0].(map[string]any))
			}
		}
		return out, nil
	}
	return nil, errors.New("--json=FIELD,…: the output is not an object")
}

func unknownField(name string, obj map[string]any) error {
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	return fmt.Errorf("unknown JSON field %q; the fields are: %s", name, strings.Join(names, ", "))
}
