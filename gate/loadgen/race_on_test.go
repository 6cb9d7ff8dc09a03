//go:build race

package loadgen

// slack scales timing tolerances: the race detector slows the client and
// the in-process simulator several-fold on a shared machine.
const slack = 10
