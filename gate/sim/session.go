package sim

import (
	"math"
	"math/rand/v2"
)

// Session is the per-start offset of one simulated server process: every
// prefill cost is multiplied by Prefill and every decode cost by Decode for
// the server's whole life. Real serving engines differ between starts by
// more than they wobble within one (CUDA graph capture, memory layout,
// clocks; see docs/simulator.md), and a gate that compares sessions must be
// tested against that, so the simulator can reproduce it.
type Session struct {
	// Seed is the seed the factors were drawn from: the configured
	// session_seed, or the fresh one drawn at this start. Starting with it
	// as session_seed reproduces the factors.
	Seed uint64 `json:"seed"`
	// Prefill and Decode are the drawn factors (1: no offset).
	Prefill float64 `json:"prefill"`
	Decode  float64 `json:"decode"`
}

// DrawSession draws the per-start factors for the given coefficients of
// variation from seed. Each factor is log-normal with mean 1 and the
// requested CV, like the step jitter, so its log has variance
// log(1+cv²) ≈ cv²: the between-session variance `perfgate calibrate`
// estimates on log values. A CV of 0 gives a factor of exactly 1. The two
// phases use separate streams, so changing one CV never changes the other
// factor.
func DrawSession(cvPrefill, cvDecode float64, seed uint64) Session {
	return Session{Seed: seed, Prefill: logNormalOne(cvPrefill, newRand(seed, 3)),
		Decode: logNormalOne(cvDecode, newRand(seed, 4))}
}

// logNormalOne is one draw of a mean-1 log-normal with coefficient of
// variation cv, or exactly 1 when cv is 0.
func logNormalOne(cv float64, r *rand.Rand) float64 {
	if cv <= 0 {
		return 1
	}
	sigma2 := math.Log1p(cv * cv)
	return math.Exp(r.NormFloat64()*math.Sqrt(sigma2) - sigma2/2)
}

// startSession draws the factors of a server starting with cfg: from
// cfg.SessionSeed when it is set, else from a fresh random seed, so that
// each start of `perfgate sim` is a new session unless asked otherwise.
func startSession(cfg Config) Session {
	seed := cfg.SessionSeed
	for seed == 0 {
		seed = rand.Uint64() // randomly seeded by the runtime
	}
	return DrawSession(cfg.SessionCVPrefill, cfg.SessionCVDecode, seed)
}
