package headless

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TestCreateJSONFailureHasTheOneShape: `payout create --json` answers a
// send the service did not accept in the shape of every --json failure,
// {"error": {"class", "message", "field"}, "exit_code"}, with the
// pipeline's class of the answer: a definite 4xx is "refused", a lost
// answer "unknown".
func TestCreateJSONFailureHasTheOneShape(t *testing.T) {
	for _, c := range []struct {
		status int
		class  string
	}{{http.StatusBadRequest, "refused"}, {http.StatusBadGateway, "unknown"}} {
		e := startCreateEnv(t, 1_000_000, func(target string) string {
			u, _ := url.Parse(target)
			rp := httputil.NewSingleHostReverseProxy(u)
			rp.ModifyResponse = func(r *http.Response) error {
				if r.Request.Method == http.MethodPost {
					r.StatusCode = c.status
				}
				return nil
			}
			proxied := httptest.NewServer(rp)
			t.Cleanup(proxied.Close)
			return proxied.URL
		})
		o := newPayout("JSON-1", "10.00")
		o.JSON = true
		out, _, code, err := e.create(t, o)
		var res struct {
			Accepted bool                `json:"accepted"`
			Error    cmdutil.ErrorDetail `json:"error"`
			ExitCode int                 `json:"exit_code"`
		}
		if jerr := json.Unmarshal([]byte(out), &res); jerr != nil {
			t.Fatalf("%d: stdout %q: %v (%v)", c.status, out, jerr, err)
		}
		if code != cmdutil.ExitNotAccepted || res.Accepted || res.Error.Class != c.class || res.ExitCode != code || res.Error.Message != err.Error() {
			t.Errorf("%d: exit %d, %+v; want class %q exit 3 and the message on stderr", c.status, code, res, c.class)
		}
	}
}
