//go:build !race

package loadgen

// slack scales timing tolerances (see race_on_test.go).
const slack = 1
