package ui

import (
	"errors"
	"testing"
)

func profileOpts() Options {
	return Options{Backend: newFake(10), Profile: "sandbox", CheckProfile: func(name string) (ProfileInfo, error) {
		switch name {
		case "staging":
			return ProfileInfo{Name: name}, nil
		case "live-eu":
			return ProfileInfo{Name: name, Production: true}, nil
		}
		return ProfileInfo{}, errors.New("no such profile (have: sandbox, staging, live-eu)")
	}}
}

func command(h *harness, line string) {
	h.key(":")
	h.typeText(line)
	h.key("enter")
}

// Issue 22 conventions: :profile NAME (or :ctx NAME) switches profile
// inside the dashboard: Run ends with *SwitchProfile for the command to
// open the dashboard on it, with no question for a plain profile.
func TestProfileCommandSwitches(t *testing.T) {
	for _, verb := range []string{"profile", "ctx"} {
		h := newHarness(t, profileOpts(), 120, 40)
		command(h, verb+" staging")
		if !h.quit() {
			t.Fatalf(":%s staging did not end the program to switch", verb)
		}
		var sw *SwitchProfile
		if err := switchedTo(h.m); !errors.As(err, &sw) || sw.Name != "staging" {
			t.Fatalf(":%s staging: Run would return %v", verb, err)
		}
	}
}

// The same production warning as the banner, before switching to a
// profile that moves real money; n stays.
func TestProfileSwitchToProductionAsksFirst(t *testing.T) {
	h := newHarness(t, profileOpts(), 80, 24)
	command(h, "profile live-eu")
	if h.quit() {
		t.Fatal("switched to a production profile without asking")
	}
	mustContain(t, h.view(), "Switch to profile", "live-eu", "PRODUCTION", "moves real money", "y switch")
	h.key("n")
	if h.quit() || h.m.switchAsk != nil {
		t.Fatal("n did not stay")
	}
	command(h, "profile live-eu")
	h.key("y")
	if !h.quit() || h.m.switchTo != "live-eu" {
		t.Fatal("y did not switch")
	}
}

// A form holding unsent input is named before it is lost; an unknown
// profile is said, and nothing switches.
func TestProfileSwitchGuardsInputAndNames(t *testing.T) {
	h := newHarness(t, profileOpts(), 120, 40)
	command(h, "profile nope")
	if h.quit() {
		t.Fatal("switched to an unknown profile")
	}
	mustContain(t, h.view(), "profile nope: no such profile")
	h.key("5")
	h.key("enter")
	h.typeText("Ada")
	h.key("alt+1")
	command(h, "profile staging")
	if h.quit() {
		t.Fatal("switched away from unsent input without asking")
	}
	mustContain(t, h.view(), "Unsent input in: New payout")
	h.key("y")
	if !h.quit() {
		t.Fatal("y did not switch")
	}
}
