package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/internal/report"
)

type exportedMsg struct {
	path string
	n    int
	err  error
}

// export writes the rows on screen to a new file in the export directory.
func (v *txView) export(c *viewContext, format string) tea.Cmd {
	st, idx := v.store, v.idx
	dir := c.opts.ExportDir
	name := "paydash-transactions-" + c.now().Format("20060102-150405")
	v.results.hold() // idx must not be reused while it is written out
	return func() tea.Msg {
		path, n, err := writeExport(dir, name, format, st, idx)
		return exportedMsg{path: path, n: n, err: err}
	}
}

func writeExport(dir, name, format string, st *report.Store, idx []int32) (string, int, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var f *os.File
	var path string
	// Never overwrite an earlier export: take the first free name.
	for i := 0; ; i++ {
		path = filepath.Join(dir, name+"."+format)
		if i > 0 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.%s", name, i, format))
		}
		var err error
		// 0600: the report names people and accounts.
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // G304: the export directory is the user's own setting
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return "", 0, fmt.Errorf("create %s (set a writable export directory in the config): %w", path, err)
		}
	}
	fm, _ := report.ParseFormat(format)
	_, err := st.Export(f, fm, idx)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", path, cerr)
	}
	if err != nil {
		return path, 0, fmt.Errorf("write %s: %w", path, err)
	}
	return path, len(idx), nil
}

// exported takes the export's answer: the rows it held may be reused, and
// the status line says where the file went.
func (v *txView) exported(c *viewContext, msg exportedMsg) {
	v.results.done()
	if msg.err != nil {
		c.setFlash("export failed: "+msg.err.Error(), true)
		return
	}
	c.setFlash("exported "+thousands(msg.n)+" rows to "+msg.path+" (times in UTC)", false)
}
