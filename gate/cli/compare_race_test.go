//go:build race

package cli

// compareRaceBuild: the race detector slows the simulator and the client
// several-fold, so millisecond timings stop measuring the simulated server.
const compareRaceBuild = true
