package testkey

import (
	"crypto/elliptic"
	"testing"
)

func TestLoadIsTheP521Key(t *testing.T) {
	k := Load(t)
	if k.Curve != elliptic.P521() {
		t.Fatalf("test key is on %s, want P-521", k.Curve.Params().Name)
	}
	if Load(t) != k {
		t.Fatal("Load returned a different key the second time")
	}
}
