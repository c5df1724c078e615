package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
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

func newNotifier(url string, c *http.Client, log *slog.Logger) *notifier {
	return &notifier{url: url, client: c, log: log}
}

// Message is the body posted to --notify-url.
type Message struct {
	Text string `json:"text"`
}

func (n *notifier) post(text string) {
	if n.url == "" {
		return
	}
	n.wg.Go(func() {
		body, _ := json.Marshal(Message{Text: text})
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
		if resp.StatusCode >= 300 {
			n.log.Warn("approvals: the notify URL refused the message", "status", resp.StatusCode)
		}
	})
}

func (n *notifier) wait() { n.wg.Wait() }
