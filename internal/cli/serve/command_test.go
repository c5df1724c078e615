package serve

import (
	"bytes"
	"strings"
	"testing"
)

// TestSandboxHelpSaysHowToScriptOutcomes: a developer pointing their
// code at the sandbox learns from --help how to get a rejection, a
// failure or a return, not only from the README.
func TestSandboxHelpSaysHowToScriptOutcomes(t *testing.T) {
	var out bytes.Buffer
	c := SandboxCommand(nil)
	c.SetOut(&out)
	c.SetArgs([]string{"--help"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"AML", "insufficient_funds", "FAIL:<reason>", "RETURN"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("paydash sandbox --help lacks %q:\n%s", want, out.String())
		}
	}
}
