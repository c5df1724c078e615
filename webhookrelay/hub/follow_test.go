package hub

import (
	"testing"
	"time"
)

// A sent payout is followed until its currency's late-webhook threshold,
// not a fixed two minutes: its final webhook is not late before then.
func TestAPayoutIsFollowedToItsLateWebhookThreshold(t *testing.T) {
	pp := &PayoutPipeline{FollowFor: 2 * time.Minute, FollowUntil: func(currency string) time.Duration {
		if currency == "GBP" {
			return 15 * time.Minute
		}
		if currency == "SEK" {
			return time.Second // shorter than the least: the least holds
		}
		return 48 * time.Hour
	}}
	for cur, want := range map[string]time.Duration{"GBP": 15 * time.Minute, "EUR": 48 * time.Hour, "SEK": 2 * time.Minute} {
		if got := pp.followFor(cur); got != want {
			t.Errorf("%s: followed for %s, want %s", cur, got, want)
		}
	}
	if got := (&PayoutPipeline{FollowUntil: pp.FollowUntil}).followFor("GBP"); got != 0 {
		t.Errorf("a pipeline that follows nothing followed for %s", got)
	}
}
