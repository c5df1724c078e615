package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Default webhook_late per rail: a Faster Payments payout (GBP) settles
// in seconds, so a quarter of an hour without its final webhook is late;
// a SEPA credit transfer (EUR) may take until the next business day.
const (
	DefaultWebhookLateGBP   = 15 * time.Minute
	DefaultWebhookLateOther = 48 * time.Hour
)

// WebhookLate is the profile's webhook_late: how long after a payout is
// sent its final webhook (settled, executed, failed, rejected) may take
// before paydash marks it late. One duration for every currency, or per
// currency (webhook_late.GBP), which wins.
type WebhookLate struct {
	All        time.Duration
	ByCurrency map[string]time.Duration
}

// For returns the limit for currency: its own, else the profile's one
// duration, else the rail's default.
func (w WebhookLate) For(currency string) time.Duration {
	if d, ok := w.ByCurrency[strings.ToUpper(currency)]; ok && d > 0 {
		return d
	}
	if w.All > 0 {
		return w.All
	}
	if strings.EqualFold(currency, "GBP") {
		return DefaultWebhookLateGBP
	}
	return DefaultWebhookLateOther
}

// ParseDays is time.ParseDuration that also takes whole days ("2d").
func ParseDays(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("%q is not a duration; write it like \"15m\", \"36h\" or \"2d\"", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; write it like \"15m\", \"36h\" or \"2d\"", s)
	}
	return d, nil
}

// checkWebhookLate reads one webhook_late value: at least a second.
func (l *loader) checkWebhookLate(key string, s setting) time.Duration {
	d, err := ParseDays(s.value)
	switch {
	case err != nil:
		l.fail(key, s, "%v", err)
	case d < time.Second:
		l.fail(key, s, "%s is too short; use at least 1s", s.value)
	default:
		return d
	}
	return 0
}
