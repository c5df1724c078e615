// Package docgen writes paydash's command reference from the cobra tree
// itself (spf13/cobra/doc), as gh and k9s do: a markdown page per command
// under docs/reference/, kept in git and checked up to date by a test,
// and man pages, made at release time (hidden `paydash gen-docs`). The
// reference cannot drift from the flags because nobody writes it.
//
// It may import cobra and cmdutil only.
package docgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// Markdown writes one page per command of root's tree into dir (created
// 0750), removing pages of commands that no longer exist.
func Markdown(root *cobra.Command, dir string) error {
	root.DisableAutoGenTag = true // no date: the pages are compared in a test
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "paydash*.md"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return doc.GenMarkdownTree(root, dir)
}

// Man writes a man page per command of root's tree into dir, section 1.
func Man(root *cobra.Command, dir string) error {
	root.DisableAutoGenTag = true
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	return doc.GenManTree(root, &doc.GenManHeader{Title: strings.ToUpper(root.Name()), Section: "1", Source: "paydash", Manual: "paydash manual"}, dir)
}

// Command is the hidden `paydash gen-docs`: the release writes the man
// pages with it, and a developer the markdown after changing a flag.
func Command(s *cmdutil.Streams, root func() *cobra.Command) *cobra.Command {
	var md, man string
	c := &cobra.Command{
		Use:    "gen-docs",
		Short:  "Write the command reference (markdown) and man pages from the command tree",
		Hidden: true,
		Args:   cmdutil.NoArgs,
		Example: "  paydash gen-docs --markdown docs/reference\n" +
			"  paydash gen-docs --man dist/man",
		RunE: func(*cobra.Command, []string) error {
			if md == "" && man == "" {
				return cmdutil.Exit(cmdutil.ExitUsage, errors.New("give --markdown DIR, --man DIR or both"))
			}
			if md != "" {
				if err := Markdown(root(), md); err != nil {
					return err
				}
				fmt.Fprintf(s.Out, "markdown reference in %s\n", md)
			}
			if man != "" {
				if err := Man(root(), man); err != nil {
					return err
				}
				fmt.Fprintf(s.Out, "man pages in %s\n", man)
			}
			return nil
		},
	}
	c.Flags().StringVar(&md, "markdown", "", "write the markdown reference into `DIR`")
	c.Flags().StringVar(&man, "man", "", "write man pages into `DIR`")
	return c
}
