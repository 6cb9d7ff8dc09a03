package sim

import (
	"math"
	"testing"
	"time"
)

// TestDrawSessionHasTheRequestedCV draws the factors from many seeds: each
// phase is mean 1 with its own CV, the phases are independent, and the log
// has variance log(1+cv²), the quantity calibration estimates.
func TestDrawSessionHasTheRequestedCV(t *testing.T) {
	const n = 20000
	const cvP, cvD = 0.08, 0.03
	var sp, sp2, sd, sd2, lv, spd float64
	for i := range n {
		s := DrawSession(cvP, cvD, uint64(i)+1)
		sp += s.Prefill
		sp2 += s.Prefill * s.Prefill
		sd += s.Decode
		sd2 += s.Decode * s.Decode
		spd += s.Prefill * s.Decode
		l := math.Log(s.Decode) + math.Log1p(cvD*cvD)/2 // centred log
		lv += l * l
	}
	mp, md := sp/n, sd/n
	cvp := math.Sqrt(sp2/n-mp*mp) / mp
	cvd := math.Sqrt(sd2/n-md*md) / md
	corr := (spd/n - mp*md) / (cvp * mp * cvd * md)
	// Standard errors: mean 0.08/sqrt(20000) = 0.06 %, CV about 0.5 % of
	// itself, correlation 1/sqrt(20000) = 0.007.
	if math.Abs(mp-1) > 0.003 || math.Abs(md-1) > 0.002 {
		t.Errorf("means %.4f %.4f, want 1", mp, md)
	}
	if math.Abs(cvp/cvP-1) > 0.03 || math.Abs(cvd/cvD-1) > 0.03 {
		t.Errorf("CVs %.4f %.4f, want %v %v", cvp, cvd, cvP, cvD)
	}
	if math.Abs(corr) > 0.03 {
		t.Errorf("prefill and decode factors correlate: %.3f", corr)
	}
	if v := lv / n; math.Abs(v/math.Log1p(cvD*cvD)-1) > 0.03 {
		t.Errorf("log variance %.3g, want %.3g", v, math.Log1p(cvD*cvD))
	}
}

func TestSessionSeed(t *testing.T) {
	if a, b := DrawSession(0.05, 0.05, 7), DrawSession(0.05, 0.05, 7); a != b {
		t.Errorf("same seed, different factors: %+v %+v", a, b)
	}
	if a, b := DrawSession(0.05, 0.05, 7), DrawSession(0.05, 0.05, 8); a == b {
		t.Errorf("different seeds, same factors: %+v", a)
	}
	// Changing one phase's CV leaves the other factor alone.
	if a, b := DrawSession(0.05, 0.02, 7), DrawSession(0.10, 0.02, 7); a.Decode != b.Decode {
		t.Errorf("decode factor moved with the prefill CV: %v %v", a.Decode, b.Decode)
	}
	cfg := fastConfig(t)
	cfg.SessionCVDecode, cfg.SessionSeed = 0.05, 42
	s1, s2 := serverSession(t, cfg), serverSession(t, cfg)
	if s1 != s2 || s1 != DrawSession(0, 0.05, 42) || s1.Prefill != 1 {
		t.Errorf("seeded starts: %+v %+v, want %+v", s1, s2, DrawSession(0, 0.05, 42))
	}
	// Without a seed each start draws afresh and reports the seed it used.
	cfg.SessionSeed = 0
	f1, f2 := serverSession(t, cfg), serverSession(t, cfg)
	if f1.Seed == 0 || f1.Seed == f2.Seed || f1.Decode == f2.Decode {
		t.Errorf("unseeded starts: %+v %+v, want two fresh draws", f1, f2)
	}
	if DrawSession(0, 0.05, f1.Seed) != f1 {
		t.Errorf("the reported seed %d does not reproduce %+v", f1.Seed, f1)
	}
}

func serverSession(t *testing.T, cfg Config) Session {
	t.Helper()
	srv, err := NewServer(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.Stats().Session != srv.Session() {
		t.Errorf("Stats().Session %+v, Session() %+v", srv.Stats().Session, srv.Session())
	}
	return srv.Session()
}

// TestSessionOffByDefault: the presets have no per-start offset, so a
// server's step costs are exactly the model's.
func TestSessionOffByDefault(t *testing.T) {
	for _, name := range PresetNames() {
		cfg, _ := Preset(name)
		if cfg.SessionCVPrefill != 0 || cfg.SessionCVDecode != 0 {
			t.Errorf("preset %s has session CVs %v %v", name, cfg.SessionCVPrefill, cfg.SessionCVDecode)
		}
		if s := serverSession(t, cfg); s.Prefill != 1 || s.Decode != 1 {
			t.Errorf("preset %s: factors %+v, want 1", name, s)
		}
	}
	cfg := fastConfig(t)
	cfg.JitterCV = 0
	b := batch{stats: stepStats{DecodeSeqs: 10, PrefillTokens: 1000, ContextTokens: 2000}}
	plain := newCore(cfg.Seed, time.Now(), newMetricsState())
	started := newCore(cfg.Seed, plain.born, newMetricsState())
	started.session = startSession(cfg)
	if a, b2 := plain.cost(&cfg, &b, plain.born), started.cost(&cfg, &b, plain.born); a != b2 {
		t.Errorf("cost with the default session %v, without %v", b2, a)
	}
}

// TestSessionScalesEachPhase: the prefill factor multiplies the prefill
// term only and the decode factor the decode term only.
func TestSessionScalesEachPhase(t *testing.T) {
	cfg := fastConfig(t)
	cfg.JitterCV = 0
	c := newCore(cfg.Seed, time.Now(), newMetricsState())
	c.session = Session{Prefill: 1.5, Decode: 0.5}
	b := batch{stats: stepStats{DecodeSeqs: 10, PrefillTokens: 1000, ContextTokens: 2000}}
	decode := float64(cfg.DecodeFixed.D()+10*cfg.DecodePerSeq.D()) + 2000*cfg.PerContextTokenNs
	prefill := float64(1000 * cfg.PrefillPerToken.D())
	want := time.Duration(float64(cfg.StepBase) + 0.5*decode + 1.5*prefill)
	if got := c.cost(&cfg, &b, c.born); got != want {
		t.Errorf("cost %v, want %v", got, want)
	}
}

func TestSessionCVValidated(t *testing.T) {
	cfg := fastConfig(t)
	cfg.SessionCVDecode = -0.1
	if err := cfg.Validate(); err == nil {
		t.Error("negative session_cv_decode accepted")
	}
	cfg.SessionCVDecode, cfg.SessionCVPrefill = 0, math.NaN()
	if err := cfg.Validate(); err == nil {
		t.Error("NaN session_cv_prefill accepted")
	}
}
