package relayclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// signatureTolerance is the usual receiver's tolerance for the delivery
// timestamp, as the relay's default.
const signatureTolerance = 5 * time.Minute

// ResendTarget picks where a resend goes: to (from --to) or else the
// URL the relay forwarded the event to. A target beyond loopback needs
// allowRemote: a resend carries a signed event, and the developer's
// handler is on this machine.
func ResendTarget(ev StoredEvent, to string, allowRemote bool) (string, error) {
	target := strings.TrimSpace(to)
	if target == "" {
		if ev.Forward == nil || ev.Forward.URL == "" {
			return "", errors.New("this event was not forwarded, so there is no forward target: pass --to http://127.0.0.1:3000/webhooks")
		}
		return ev.Forward.URL, nil
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--to %q must be an absolute http(s) URL, e.g. http://127.0.0.1:3000/webhooks", target)
	}
	if !allowRemote && !loopbackHost(u.Hostname()) {
		return "", fmt.Errorf("--to %s is not on this machine (loopback): a resend carries a signed event; pass --allow-remote to send it there", u.Host)
	}
	return target, nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ResendWarnings says why a handler that verifies signatures may refuse
// the resend: the signature covers the original path and timestamp.
func ResendWarnings(ev StoredEvent, target string, now time.Time) []string {
	var out []string
	if u, err := url.Parse(target); err == nil && ev.Path != "" && u.Path != ev.Path {
		out = append(out, fmt.Sprintf("the signature covers the original path %s; a handler verifying it at %s will refuse it", ev.Path, u.EscapedPath()))
	}
	if ts := ev.Headers[api.HeaderWebhookTimestamp]; ts != "" {
		if at, err := time.Parse(api.WebhookTimeLayout, ts); err == nil && now.Sub(at) > signatureTolerance {
			out = append(out, fmt.Sprintf("the signed timestamp %s is %s old, beyond the usual %s tolerance; a handler checking it will refuse it",
				ts, now.Sub(at).Round(time.Second), signatureTolerance))
		}
	}
	return out
}

// Resend posts the stored event to target again, byte for byte, with its
// original headers (signature included), and returns the attempt with
// the handler's answer. The client sends it: the relay never posts to a
// URL named at run time.
func Resend(ctx context.Context, client *http.Client, ev StoredEvent, target string, clk clock.Clock) Attempt {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	if clk == nil {
		clk = clock.Real()
	}
	ans := PostEvent(ctx, client, target, ev.Headers, ev.Raw, clk)
	return Attempt{Kind: AttemptResend, EventSeq: ev.Seq, EventID: ev.EventID, Type: ev.Type, Final: true, Answer: ans}
}

// ResendLog is the client's history of resends: one JSON Attempt a line,
// appended, in the state directory.
type ResendLog struct{ Path string }

// ResendLogFile is the history's file name under the state directory.
const ResendLogFile = "resends.jsonl"

// ResendLogFormat is the history's format: format 1 (before store
// versions) is the same lines without a header; format 2 starts a new
// file with {"paydash_resends_format":2}. Both read as they are; a newer
// format is refused rather than misread.
const ResendLogFormat = 2

var resendHeader = []byte(`{"paydash_resends_format":`)

// maxResendLog bounds what List reads back.
const maxResendLog = 1000

// Append adds a resend to the history.
func (l ResendLog) Append(a Attempt) error {
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	b, err := json.Marshal(a)
	if err != nil {
		f.Close()
		return err
	}
	b = append(b, '\n')
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		b = append(fmt.Appendf(nil, "%s%d}\n", resendHeader, ResendLogFormat), b...)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// List returns the last resends, oldest first (none when there is no
// history yet). A line that does not parse is skipped.
func (l ResendLog) List() ([]Attempt, error) {
	f, err := os.Open(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Attempt
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), resendHeader) {
			var h struct {
				Format int `json:"paydash_resends_format"`
			}
			if json.Unmarshal(sc.Bytes(), &h) == nil && h.Format > ResendLogFormat {
				return nil, fmt.Errorf("history of resends %s is format %d, written by a newer paydash; this one reads formats 1 to %d: run the paydash that wrote it, or move the file aside", l.Path, h.Format, ResendLogFormat)
			}
			continue
		}
		var a Attempt
		if json.Unmarshal(sc.Bytes(), &a) == nil {
			out = append(out, a)
			if len(out) > maxResendLog {
				out = out[1:]
			}
		}
	}
	return out, sc.Err()
}
