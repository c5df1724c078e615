package config_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/paydash/paydash/config"
)

const viewsProfile = `# my profiles
default_profile = "ops"

[profiles.ops]
auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "id"
client_secret_env = "OPS_SECRET"
start_view = "failed-gbp"
start_tab = "transactions"

# the morning check
[[profiles.ops.views]]
name = "failed-gbp"
filter = "status:failed cur:GBP"
sort = "amount desc"
columns = ["time", "amount", "status", "beneficiary"]
tracker_columns = ["id", "state", "timeline"]
window = "7d"

[[profiles.ops.views]]
name = "big"
filter = "amount:>1000"
`

// noFilterProblem stands in for the report's parser: it refuses "bad:".
func checkFilter(f string) error {
	if strings.Contains(f, "bad:") {
		return errors.New(`"bad:" is not a filter term`)
	}
	return nil
}

func loadViews(t *testing.T, content string) (*config.Profile, error) {
	t.Helper()
	path := writeFile(t, t.TempDir(), "config.toml", content, 0o600)
	p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, map[string]string{"OPS_SECRET": "s"}), CheckFilter: checkFilter})
	return p, err
}

func TestViewsLoad(t *testing.T) {
	p, err := loadViews(t, viewsProfile)
	if err != nil {
		t.Fatal(err)
	}
	if p.StartView != "failed-gbp" || p.StartTab != "transactions" {
		t.Errorf("start_view %q start_tab %q", p.StartView, p.StartTab)
	}
	if got := p.ViewNames(); strings.Join(got, ",") != "failed-gbp,big" {
		t.Fatalf("views %v", got)
	}
	v, _ := p.ViewByName("failed-gbp")
	if v.Query() != "status:failed cur:GBP date:7d" || v.Sort != "amount desc" || strings.Join(v.Columns, ",") != "time,amount,status,beneficiary" ||
		strings.Join(v.TrackerColumns, ",") != "id,state,timeline" || v.Line != 14 {
		t.Errorf("view read as %+v", v)
	}
	if col, desc := config.SortOf(v.Sort); col != "amount" || !desc {
		t.Errorf("SortOf(%q) = %q, %v", v.Sort, col, desc)
	}
}

// A bad view is refused at load, naming the line it is on.
func TestViewsRefusedNamingTheLine(t *testing.T) {
	for _, c := range []struct{ name, edit, want string }{
		{"bad filter", `filter = "status:failed cur:GBP"`, `line 16: filter "bad:1": "bad:" is not a filter term`},
		{"unknown column", `columns = ["time", "amount", "status", "beneficiary"]`, `line 18: unknown column "amout" (did you mean amount?)`},
		{"unknown tracker column", `tracker_columns = ["id", "state", "timeline"]`, `line 19: unknown column "sate" (did you mean state?)`},
		{"twice", `columns = ["time", "amount", "status", "beneficiary"]`, `line 18: column "time" is listed twice`},
		{"bad sort", `sort = "amount desc"`, `line 17: sort "amount down": "down" is neither asc nor desc`},
		{"bad window", `window = "7d"`, `line 20: window "8d": use one of today, 7d, 30d, all`},
		{"unknown key", `window = "7d"`, `line 20: unknown key (did you mean window?)`},
		{"start view", `start_view = "failed-gbp"`, `names view "nope", which the profile does not have (its views: failed-gbp, big)`},
		{"start tab", `start_tab = "transactions"`, `start_tab "transaction" (did you mean transactions?)`},
		{"no name", `name = "failed-gbp"`, `line 15: every view needs a name`},
	} {
		repl := map[string]string{
			"bad filter": `filter = "bad:1"`, "unknown column": `columns = ["time", "amout"]`,
			"unknown tracker column": `tracker_columns = ["id", "sate"]`, "twice": `columns = ["time", "time"]`,
			"bad sort": `sort = "amount down"`, "bad window": `window = "8d"`, "unknown key": `windw = "7d"`,
			"start view": `start_view = "nope"`, "start tab": `start_tab = "transaction"`, "no name": `name = ""`,
		}[c.name]
		text := strings.Replace(viewsProfile, c.edit, repl, 1)
		if c.name == "start view" || c.name == "no name" {
			// name = "" leaves start_view naming a view that is gone.
			text = strings.Replace(text, `start_view = "failed-gbp"`, `start_view = "big"`, 1)
			if c.name == "start view" {
				text = strings.Replace(text, `start_view = "big"`, repl, 1)
			}
		}
		_, err := loadViews(t, text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want it to say %s", c.name, err, c.want)
		}
	}
}

// Saving a view from the screen appends it as text: comments and the
// rest of the file stay as they were, the mode stays 0600, and the file
// loads with the new view.
func TestAppendViewKeepsTheFile(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config.toml", viewsProfile, 0o600)
	v := config.View{Name: "mine", Filter: `ref "INV-1" \ x`, Sort: "time asc", Columns: []string{"time", "amount"}, Window: "30d"}
	if err := config.AppendView(path, "ops", v, checkFilter); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), viewsProfile) {
		t.Fatalf("the file's own text changed:\n%s", raw)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, map[string]string{"OPS_SECRET": "s"}), CheckFilter: checkFilter})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := p.ViewByName("mine")
	if !ok || got.Filter != v.Filter || got.Sort != v.Sort || strings.Join(got.Columns, ",") != "time,amount" || got.Window != "30d" {
		t.Fatalf("saved view read back as %+v", got)
	}
	// A name taken, and a filter the report cannot read, are refused and
	// leave the file alone.
	for _, bad := range []config.View{{Name: "big"}, {Name: "worse", Filter: "bad:2"}} {
		if err := config.AppendView(path, "ops", bad, checkFilter); err == nil {
			t.Errorf("view %+v saved", bad)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(raw) {
		t.Errorf("a refused save changed the file")
	}
}

// The template's commented view and start_view load when uncommented.
func TestTemplateViewExampleLoads(t *testing.T) {
	text := string(config.Template())
	for _, l := range []string{`# start_view = "failed-gbp"`, `# start_tab = "transactions"`, "# [[profiles.sandbox.views]]", `# name = "failed-gbp"`,
		`# filter = "status:failed cur:GBP"`, `# sort = "amount desc"`, `# columns = ["time", "amount", "status", "beneficiary", "reference"]`, `# window = "7d"`} {
		if !strings.Contains(text, l) {
			t.Fatalf("the template lacks %q", l)
		}
		text = strings.Replace(text, l, strings.TrimPrefix(l, "# "), 1)
	}
	path := writeFile(t, t.TempDir(), "config.toml", text, 0o600)
	p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil), CheckFilter: checkFilter})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p.ViewByName("failed-gbp"); !ok || p.StartView != "failed-gbp" || p.StartTab != "transactions" || v.Query() != "status:failed cur:GBP date:7d" {
		t.Fatalf("the template's example read as %+v (start %q %q)", v, p.StartView, p.StartTab)
	}
}
