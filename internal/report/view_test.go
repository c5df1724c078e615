package report

import "testing"

func TestColumnByKey(t *testing.T) {
	for i, k := range ColumnKeys {
		if c, ok := ColumnByKey(k); !ok || c != Column(i) {
			t.Errorf("ColumnByKey(%q) = %v, %v", k, c, ok)
		}
	}
	if _, ok := ColumnByKey("amout"); ok {
		t.Error("a misspelt column was found")
	}
}

func TestCheckFilter(t *testing.T) {
	if err := CheckFilter("status:failed cur:GBP amount:>10 ada"); err != nil {
		t.Errorf("a good filter refused: %v", err)
	}
	for _, bad := range []string{"status:settld", "cur:XYZ", "amount:>>"} {
		if CheckFilter(bad) == nil {
			t.Errorf("filter %q accepted", bad)
		}
	}
}
