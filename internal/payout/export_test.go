package payout

// TestRequest is a valid payout request for the tests in package
// payout_test (pipeline_test.go), which use payouttest: payouttest
// imports payout, so a test in package payout cannot import it.
var TestRequest = payoutReq
