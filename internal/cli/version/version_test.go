package version

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

func TestFromBuildInfo(t *testing.T) {
	checkout := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/paydash/paydash", Version: "v0.0.0-20261128030000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-28T03:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/paydash/paydash", Version: "v1.4.0"}}
	devel := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/paydash/paydash", Version: "(devel)"}}
	for _, tc := range []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		ok     bool
		want   Info
		line   string
	}{
		{"checkout build names the revision", "dev", checkout, true,
			Info{Version: "v0.0.0-20261128030000-0123456789ab+dirty", Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-11-28T03:00:00Z", Modified: true, Go: "go1.26.8"},
			"paydash v0.0.0-20261128030000-0123456789ab+dirty (revision 0123456789ab, 2026-11-28T03:00:00Z, modified) go1.26.8"},
		{"go install names the module version", "dev", installed, true,
			Info{Version: "v1.4.0", Go: "go1.26.8"}, "paydash v1.4.0 go1.26.8"},
		{"a release's -ldflags win", "v2.0.0", installed, true,
			Info{Version: "v2.0.0", Go: "go1.26.8"}, "paydash v2.0.0 go1.26.8"},
		{"an old toolchain's (devel) is dev", "", devel, true,
			Info{Version: "dev", Go: "go1.26.8"}, "paydash dev go1.26.8"},
		{"no build info", "", nil, false, Info{Version: "dev"}, "paydash dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FromBuildInfo(tc.linked, tc.bi, tc.ok)
			got.Platform = "" // the machine's
			if tc.bi == nil {
				got.Go = ""
			}
			if got != tc.want {
				t.Fatalf("FromBuildInfo = %+v, want %+v", got, tc.want)
			}
			if line := got.String(); !strings.HasPrefix(line, tc.line) {
				t.Fatalf("String() = %q, want it to start %q", line, tc.line)
			}
		})
	}
}

func TestCommandPrintsJSON(t *testing.T) {
	var out bytes.Buffer
	in := Info{Version: "v1.4.0", Revision: "abc", Go: "go1.26.8", Platform: "linux/amd64"}
	c := Command(&cmdutil.Streams{Out: &out}, in)
	c.SetArgs([]string{"--json"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	var got Info
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if got != in {
		t.Fatalf("version --json = %+v, want %+v", got, in)
	}
}
