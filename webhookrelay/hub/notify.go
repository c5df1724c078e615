package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// notifier posts {"text": ...} to --notify-url (the shape chat incoming
// webhooks take), so requests do not lapse unseen. Posts run in the
// background and a failure is logged, never in a request's way.
type notifier struct {
	url    string
	client *http.Client
	log    *slog.Logger
	wg     sync.WaitGroup
}

// newNotifier posts to url with a copy of c that follows no redirect:
// the message goes to the address the administrator gave, never to
// another host a redirect names.
func newNotifier(url string, c *http.Client, log *slog.Logger) *notifier {
	nc := *c
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &notifier{url: url, client: &nc, log: log}
}

// chatText makes text inert in the markup of Slack, Mattermost and Teams
// incoming webhooks: a payee's name or reference comes from whoever
// requested the payout, and posted raw, "<!channel>" or "@channel" would
// alert everyone and "<https://evil.example|Approve>" would post a
// disguised link under paydash's name. &, < and > become the entities
// Slack documents (so no <...> control sequence survives, nor a Teams
// <at> tag), and each @ is followed by a word joiner (U+2060), so no word
// after it is a mention (@channel, @here, @all, @everyone, @someone)
// while the text reads the same.
func chatText(text string) string {
	return chatEscaper.Replace(text)
}

var chatEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "@", "@\u2060")

// Message is the body posted to --notify-url.
type Message struct {
	Text string `json:"text"`
}

func (n *notifier) post(text string) {
	if n.url == "" {
		return
	}
	n.wg.Go(func() {
		body, _ := json.Marshal(Message{Text: chatText(text)})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
		if err != nil {
			n.log.Error("approvals: notify", "err", err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := n.client.Do(req)
		if err != nil {
			n.log.Warn("approvals: the notify URL did not answer", "err", err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			n.log.Warn("approvals: the notify URL answered with a redirect, which is not followed; give --notify-url the address it names", "status", resp.StatusCode, "location", resp.Header.Get("Location"))
		} else if resp.StatusCode >= 300 {
			n.log.Warn("approvals: the notify URL refused the message", "status", resp.StatusCode)
		}
	})
}

func (n *notifier) wait() { n.wg.Wait() }
