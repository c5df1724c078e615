package hubclient

import "testing"

func TestBaseFromRelayURL(t *testing.T) {
	for in, want := range map[string]string{
		"ws://127.0.0.1:8787/ws":     "http://127.0.0.1:8787",
		"wss://hub.example/ws":       "https://hub.example",
		" ws://[::1]:8787/ws?x=1 ":   "http://[::1]:8787",
		"wss://hub.example:443/a/ws": "https://hub.example:443",
	} {
		got, err := BaseFromRelayURL(in)
		if err != nil || got != want {
			t.Errorf("BaseFromRelayURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "hub.example:8787", "ftp://hub/ws", "ws:///ws"} {
		if _, err := BaseFromRelayURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
