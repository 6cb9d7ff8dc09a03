//go:build race

package verdict

// raceBuild: the race detector slows the single-threaded simulations ~6x
// and finds nothing in them, so they run a quarter of their size.
const raceBuild = true
