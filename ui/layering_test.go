package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// parseUI parses the package's non-test files whose names match glob.
func parseUI(t *testing.T, glob string) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	fs := token.NewFileSet()
	out := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = f
	}
	return out
}

// Issue 18 item 6: the root model routes messages and lays out; it reads
// and changes the views only through their methods, never their fields
// (m.tx.store, m.bal.hist = …, m.payout.spec.(*payoutForm) were).
func TestRootReachesViewsOnlyThroughMethods(t *testing.T) {
	views := map[string]bool{"bal": true, "tx": true, "tracker": true, "events": true, "payout": true, "payment": true, "mandate": true, "approvals": true}
	for name, f := range parseUI(t, "root*.go") {
		called := map[*ast.SelectorExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if s, ok := c.Fun.(*ast.SelectorExpr); ok {
					called[s] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			s, ok := n.(*ast.SelectorExpr)
			if !ok || called[s] {
				return true
			}
			inner, ok := s.X.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := inner.X.(*ast.Ident); ok && id.Name == "m" && views[inner.Sel.Name] {
				t.Errorf("%s: the root reads the field m.%s.%s of a view", name, inner.Sel.Name, s.Sel.Name)
			}
			return true
		})
	}
}

// Issue 18 item 6: the generic form knows no kind of form: what the
// payout form adds (held sends, results, following, correction) it asks
// for through optional interfaces.
func TestGenericFormKnowsNoKindOfForm(t *testing.T) {
	banned := map[string]bool{"payoutForm": true, "paymentForm": true, "mandateForm": true, "tabPayout": true, "tabPayment": true,
		"tabMandate": true, "asDuplicate": true, "duplicateView": true, "allowDuplicates": true, "PayoutRequest": true}
	for _, glob := range []string{"form.go", "form_fields.go", "form_keys.go", "form_failure.go", "form_hooks.go", "form_confirm.go"} {
		for name, f := range parseUI(t, glob) {
			ast.Inspect(f, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && banned[id.Name] {
					t.Errorf("%s names %s", name, id.Name)
				}
				return true
			})
		}
	}
}
