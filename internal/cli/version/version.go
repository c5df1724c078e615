// Package version is `paydash version` and the root's --version: which
// build this is. A release sets the version with -ldflags; any other
// build (a checkout's `go build`, `go install module@version`) is named
// by what the Go toolchain embeds in the binary (debug.ReadBuildInfo):
// the module version and the VCS revision, time and modified flag, so a
// bug report names the exact code without anyone remembering to stamp it.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// Info is what a build knows of itself. Its JSON is `paydash version
// --json`.
type Info struct {
	// Version is the release (-ldflags "-X main.version=…"), else the
	// module version the toolchain stamped (v1.2.3, or a pseudo-version
	// from the checkout), else "dev".
	Version string `json:"version"`
	// Revision, Time and Modified come from the VCS the binary was built
	// in; empty (false) for a build outside a checkout.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read is this binary's Info; linked is the -ldflags version ("" or
// "dev" when none was given).
func Read(linked string) Info {
	bi, ok := debug.ReadBuildInfo()
	return FromBuildInfo(linked, bi, ok)
}

// FromBuildInfo is Read over a given build info, for tests.
func FromBuildInfo(linked string, bi *debug.BuildInfo, ok bool) Info {
	in := Info{Version: linked, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if !ok || bi == nil {
		if in.Version == "" {
			in.Version = "dev"
		}
		return in
	}
	if bi.GoVersion != "" {
		in.Go = bi.GoVersion
	}
	if in.Version == "" || in.Version == "dev" {
		// "(devel)" is what older toolchains stamp on a checkout's build.
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
		} else {
			in.Version = "dev"
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one line --version prints: version, then the revision
// (short), its time and whether the tree was modified, then Go and the
// platform.
func (in Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "paydash %s", in.Version)
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts := []string{"revision " + rev}
		if in.Time != "" {
			parts = append(parts, in.Time)
		}
		if in.Modified {
			parts = append(parts, "modified")
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, " %s %s", in.Go, in.Platform)
	return b.String()
}

// Command is `paydash version [--json]`.
func Command(s *cmdutil.Streams, in Info) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print the version, VCS revision and build of this binary",
		Example: "  paydash version\n  paydash version --json",
		Args:    cmdutil.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if asJSON {
				return cmdutil.WriteJSON(s.Out, in)
			}
			_, err := fmt.Fprintln(s.Out, in.String())
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}
