//go:build race

package ab

// raceBuild: the race detector slows the single-threaded simulations
// several times and finds nothing in them, so under it (as under -short)
// they run a third of their size; `go test ./gate/ab` without -race runs
// them in full (see reduced).
const raceBuild = true
