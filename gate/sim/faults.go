package sim

import (
	"net/http"
	"time"
)

// Fault kinds as they appear in sim_faults_total{kind=...} and Stats.Faults.
const (
	faultHTTP500     = "http_500"
	faultHTTP429     = "http_429"
	faultHTTP503     = "http_503"
	faultStreamError = "stream_error"
	faultDrop        = "drop"
	faultStall       = "stall"
	faultSlowStart   = "slow_start" // one per /health answered 503
	faultExit        = "exit"       // one per request refused after the exit limit
)

var faultKinds = []string{faultHTTP500, faultHTTP429, faultHTTP503, faultStreamError, faultDrop,
	faultStall, faultSlowStart, faultExit}

var statusFaultKind = map[int]string{500: faultHTTP500, 429: faultHTTP429, 503: faultHTTP503}

// faultPlan is what will go wrong with one request, decided when it arrives.
// A token threshold of -1 means the fault does not happen.
type faultPlan struct {
	status        int
	streamErrorAt int
	dropAt        int
	stallAt       int
	stallFor      time.Duration
}

// drawFaults decides one request's faults. It always draws the same number
// of values from the seeded fault stream, so which requests fail depends only
// on the seed and the arrival order, not on which knobs are set.
func (s *Server) drawFaults(cfg *Config) faultPlan {
	s.faultMu.Lock()
	if cfg.Seed != s.faultSeed {
		s.faultSeed = cfg.Seed
		s.faultRand = newRand(cfg.Seed, 2)
	}
	u := [4]float64{s.faultRand.Float64(), s.faultRand.Float64(), s.faultRand.Float64(), s.faultRand.Float64()}
	s.faultMu.Unlock()
	f := cfg.Faults
	p := faultPlan{streamErrorAt: -1, dropAt: -1, stallAt: -1}
	switch {
	case u[0] < f.HTTP500Rate:
		p.status = http.StatusInternalServerError
	case u[0] < f.HTTP500Rate+f.HTTP429Rate:
		p.status = http.StatusTooManyRequests
	case u[0] < f.HTTP500Rate+f.HTTP429Rate+f.HTTP503Rate:
		p.status = http.StatusServiceUnavailable
	}
	if u[1] < f.StreamErrorRate {
		p.streamErrorAt = f.StreamErrorAfter
	}
	if u[2] < f.DropRate {
		p.dropAt = f.DropAfter
	}
	if u[3] < f.StallRate && f.StallFor > 0 {
		p.stallAt, p.stallFor = f.StallAfter, f.StallFor.D()
	}
	return p
}

// due reports whether a fault with threshold at fires once written tokens
// have been sent.
func due(at, written int) bool { return at >= 0 && written >= at }
