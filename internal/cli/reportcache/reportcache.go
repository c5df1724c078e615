// Package reportcache is `paydash cache status|clear`: what the
// profile's transaction report cache holds (rows, size, the spans of
// report time and when each was fetched) and dropping it. The cache
// itself is internal/report/cache.
package reportcache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/report/cache"
)

// Command is `paydash cache` with status and clear.
func Command(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{
		Use:   "cache",
		Short: "Show or drop the profile's transaction report cache",
		Long: `The transaction report is kept on disk between runs, per profile, in
$XDG_STATE_HOME/paydash/<profile>/report.cache (mode 0600), so the dashboard
opens at once and paydash transactions answers after fetching only what
changed. report_cache = false in the profile keeps none.`,
		Args: cmdutil.NoArgs,
	}
	var asJSON bool
	status := &cobra.Command{
		Use:     "status",
		Short:   "Show what the report cache holds",
		Example: "  paydash cache status\n  paydash cache status --json",
		Args:    cmdutil.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			p, err := cmdutil.LoadProfile(s, g)
			if err != nil {
				return err
			}
			return Status(s.Out, path(s, p), cache.Key{Profile: p.Name, ServiceURL: p.PayoutsURL}, p.ReportCache, asJSON)
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	var clearJSON bool
	clear := &cobra.Command{
		Use:     "clear",
		Short:   "Delete the report cache (the next run fetches the whole report)",
		Example: "  paydash cache clear",
		Args:    cmdutil.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			p, err := cmdutil.LoadProfile(s, g)
			if err != nil {
				return err
			}
			return Clear(s.Out, path(s, p), cache.Key{Profile: p.Name, ServiceURL: p.PayoutsURL}, clearJSON)
		},
	}
	clear.Flags().BoolVar(&clearJSON, "json", false, "print as JSON")
	c.AddCommand(status, clear)
	return c
}

func path(s *cmdutil.Streams, p *config.Profile) string {
	return cache.Path(config.StateDir(s.Env), p.Name)
}

// statusJSON is `cache status --json`.
type statusJSON struct {
	Path    string       `json:"path"`
	Enabled bool         `json:"enabled"`
	Exists  bool         `json:"exists"`
	Usable  bool         `json:"usable"`
	Problem string       `json:"problem,omitempty"`
	Profile string       `json:"profile,omitempty"`
	Service string       `json:"service_url,omitempty"`
	Rows    int          `json:"rows"`
	Bytes   int64        `json:"bytes"`
	Written time.Time    `json:"written,omitzero"`
	Ranges  cache.Ranges `json:"ranges,omitempty"`
	// Complete is whether the whole history is held.
	Complete bool `json:"complete"`
}

// Status prints what the cache at path holds for key.
func Status(w io.Writer, path string, key cache.Key, enabled, asJSON bool) error {
	meta, err := cache.New(path, key).Stat()
	st := statusJSON{Path: path, Enabled: enabled, Exists: !errors.Is(err, cache.ErrNone), Usable: err == nil,
		Profile: meta.Key.Profile, Service: meta.Key.ServiceURL, Rows: meta.Rows, Bytes: meta.Bytes, Written: meta.Written,
		Ranges: meta.Ranges, Complete: meta.Ranges.Complete()}
	if err != nil && st.Exists {
		st.Problem = err.Error()
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(w, "report cache: %s\n", path)
	if !enabled {
		fmt.Fprintln(w, "report_cache = false in this profile: no cache is kept or read")
	}
	switch {
	case !st.Exists:
		fmt.Fprintln(w, "no cache yet: the next dashboard start or paydash transactions writes it")
		return nil
	case st.Problem != "":
		fmt.Fprintf(w, "not usable: %s\n", cache.Describe(err))
		if meta.Key.Profile == "" {
			return nil
		}
	}
	fmt.Fprintf(w, "for profile %s on %s\n", meta.Key.Profile, meta.Key.ServiceURL)
	fmt.Fprintf(w, "%s rows, %s, written %s\n", humanize.Comma(int64(meta.Rows)), humanize.IBytes(uint64(max(meta.Bytes, 0))), meta.Written.Format(time.RFC3339))
	if st.Complete {
		fmt.Fprintln(w, "holds the whole history:")
	} else {
		fmt.Fprintln(w, "holds part of the history (older rows are fetched on the next run):")
	}
	for _, r := range meta.Ranges {
		from := "the beginning"
		if !r.From.IsZero() {
			from = r.From.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  %s to %s, fetched %s\n", from, r.To.Format(time.RFC3339), r.Fetched.Format(time.RFC3339))
	}
	return nil
}

// Clear drops the cache at path.
func Clear(w io.Writer, path string, key cache.Key, asJSON bool) error {
	c := cache.New(path, key)
	_, err := c.Stat()
	existed := !errors.Is(err, cache.ErrNone)
	if err := c.Clear(); err != nil { // and any temporary file a cut-off write left
		return err
	}
	switch {
	case asJSON:
		return json.NewEncoder(w).Encode(struct {
			Path    string `json:"path"`
			Removed bool   `json:"removed"`
		}{path, existed})
	case !existed:
		fmt.Fprintf(w, "no report cache for profile %s (%s)\n", key.Profile, path)
		return nil
	}
	fmt.Fprintf(w, "removed the report cache of profile %s (%s); the next run fetches the whole report\n", key.Profile, path)
	return nil
}
