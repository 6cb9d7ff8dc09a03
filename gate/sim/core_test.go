package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// virtualRun drives the core with a virtual clock: every request arrives at
// t0, each step ends exactly when its cost says. It returns one line per
// step and the output length of every sequence.
func virtualRun(t *testing.T, cfg Config, prompts []int, maxTokens int, ignoreEOS bool) (trace []string, lengths []int, met *metricsState) {
	t.Helper()
	t0 := time.Unix(1_700_000_000, 0)
	met = newMetricsState()
	c := newCore(cfg.Seed, t0, met)
	var seqs []*seq
	for i, n := range prompts {
		p := make([]uint64, n)
		for j := range p {
			p[j] = uint64(i*100000 + j) // distinct prompts: no prefix sharing
		}
		s := &seq{num: uint64(i + 1), prompt: p, maxTokens: maxTokens, ignoreEOS: ignoreEOS,
			rng: newRand(cfg.Seed, uint64(i)), arrival: t0, out: &output{notify: make(chan struct{}, 1)}}
		seqs = append(seqs, s)
		c.waiting = append(c.waiting, s)
	}
	now := t0
	for step := 0; !c.idle(); step++ {
		if step > 100000 {
			t.Fatal("virtual run does not finish")
		}
		b := c.schedule(&cfg)
		if len(b.seqs) == 0 {
			t.Fatalf("step %d: nothing schedulable with %d waiting", step, len(c.waiting))
		}
		d := c.cost(&cfg, &b, now)
		now = now.Add(d)
		c.complete(&cfg, &b, now)
		trace = append(trace, fmt.Sprintf("seqs=%d decode=%d prefill=%d ctx=%d dur=%v", len(b.seqs),
			b.stats.DecodeSeqs, b.stats.PrefillTokens, b.stats.ContextTokens, d))
	}
	for _, s := range seqs {
		lengths = append(lengths, s.generated)
	}
	return trace, lengths, met
}

func TestSameSeedSameSchedule(t *testing.T) {
	cfg := fastConfig(t)
	cfg.EOSMeanTokens = 20
	cfg.KVCacheTokens = 2048 // small enough to preempt
	cfg.MaxBatchedTokens = 512
	prompts := []int{300, 50, 700, 120, 900, 64, 410, 33}
	tr1, len1, m1 := virtualRun(t, cfg, prompts, 200, false)
	tr2, len2, _ := virtualRun(t, cfg, prompts, 200, false)
	if !slices.Equal(tr1, tr2) || !slices.Equal(len1, len2) {
		t.Fatal("the same seed gave different schedules or lengths")
	}
	if m1.preemptions == 0 {
		t.Error("expected preemptions with a 2048-token KV cache")
	}
	cfg.Seed++
	tr3, len3, _ := virtualRun(t, cfg, prompts, 200, false)
	if slices.Equal(tr1, tr3) || slices.Equal(len1, len3) {
		t.Error("a different seed gave the same schedule and lengths")
	}
}

func TestIgnoreEOSRunsToMaxTokens(t *testing.T) {
	cfg := fastConfig(t)
	cfg.EOSMeanTokens = 5
	_, lengths, _ := virtualRun(t, cfg, []int{10, 20, 30}, 64, true)
	for i, n := range lengths {
		if n != 64 {
			t.Errorf("seq %d produced %d tokens with ignore_eos, want 64", i, n)
		}
	}
	_, lengths, _ = virtualRun(t, cfg, []int{10, 20, 30, 40, 50, 60}, 64, false)
	if slices.Max(lengths) == 64 && slices.Min(lengths) == 64 {
		t.Error("EOS never fired with eos_mean_tokens 5")
	}
}

func TestChunkedPrefillRespectsBudget(t *testing.T) {
	cfg := fastConfig(t)
	cfg.MaxBatchedTokens = 256
	cfg.JitterCV = 0
	trace, lengths, met := virtualRun(t, cfg, []int{1000, 1000}, 4, true)
	var steps int
	for _, line := range trace {
		var seqs, dec, pre, ctx int
		var dur string
		fmt.Sscanf(line, "seqs=%d decode=%d prefill=%d ctx=%d dur=%s", &seqs, &dec, &pre, &ctx, &dur)
		if dec+pre > 256 {
			t.Errorf("step %q exceeds the 256-token budget", line)
		}
		steps++
	}
	// 2000 prompt tokens at 256 a step need at least 8 steps before the
	// last first token, then 3 decode steps.
	if steps < 8+3 {
		t.Errorf("%d steps, want >= 11", steps)
	}
	if lengths[0] != 4 || lengths[1] != 4 || met.promptTokens != 2000 {
		t.Errorf("lengths %v, prompt tokens %d", lengths, met.promptTokens)
	}
}

func TestCostModel(t *testing.T) {
	cfg := fastConfig(t)
	cfg.JitterCV = 0
	c := newCore(cfg.Seed, time.Now(), newMetricsState())
	b := batch{stats: stepStats{DecodeSeqs: 10, PrefillTokens: 1000, ContextTokens: 2000}}
	base := c.cost(&cfg, &b, c.born)
	want := cfg.StepBase.D() + cfg.DecodeFixed.D() + 10*cfg.DecodePerSeq.D() + 1000*cfg.PrefillPerToken.D() + 1000*time.Nanosecond
	if base != want {
		t.Fatalf("cost %v, want %v", base, want)
	}
	cfg.DecodeScale = 2
	decode := cfg.DecodeFixed.D() + 10*cfg.DecodePerSeq.D() + 1000*time.Nanosecond
	if got := c.cost(&cfg, &b, c.born); got != want+decode {
		t.Errorf("decode x2: %v, want %v", got, want+decode)
	}
	cfg.DecodeScale, cfg.DriftPctPerMinute = 1, 10
	if got := c.cost(&cfg, &b, c.born.Add(2*time.Minute)); got != want*12/10 {
		t.Errorf("drift 10%%/min after 2 min: %v, want %v", got, want*12/10)
	}
	cfg.DriftPctPerMinute, cfg.DriftPctPer1000Requests = 0, 5
	c.received = func() int64 { return 3000 }
	if got := c.cost(&cfg, &b, c.born); got != want*115/100 {
		t.Errorf("drift 5%%/1000 requests after 3000: %v, want %v", got, want*115/100)
	}
}

// TestJitterIsMeanOneWithTheRequestedCV samples the log-normal jitter.
func TestJitterIsMeanOneWithTheRequestedCV(t *testing.T) {
	cfg := fastConfig(t)
	cfg.JitterCV = 0.1
	c := newCore(cfg.Seed, time.Now(), newMetricsState())
	b := batch{stats: stepStats{DecodeSeqs: 1}}
	const n = 20000
	var sum, sumSq float64
	for range n {
		v := float64(c.cost(&cfg, &b, c.born))
		sum += v
		sumSq += v * v
	}
	mean := sum / n
	cv := math.Sqrt(sumSq/n-mean*mean) / mean
	model := float64(cfg.StepBase + cfg.DecodeFixed + cfg.DecodePerSeq)
	// Standard error of the mean is 0.1/sqrt(20000) = 0.07%; allow 0.5%.
	if math.Abs(mean/model-1) > 0.005 || math.Abs(cv-0.1) > 0.005 {
		t.Errorf("jitter mean ratio %.4f, CV %.4f; want 1 and 0.1", mean/model, cv)
	}
}

// TestH100PresetFigures pins the h100-8b preset to the published range it
// claims: TPOT ~10 ms at batch 1, rising to 15-20 ms at 64 sequences with
// 1.5k tokens of context, and ~40 us of prefill per prompt token.
func TestH100PresetFigures(t *testing.T) {
	cfg, err := Preset("h100-8b")
	if err != nil {
		t.Fatal(err)
	}
	cfg.JitterCV = 0
	c := newCore(cfg.Seed, time.Now(), newMetricsState())
	step := func(st stepStats) time.Duration { b := batch{stats: st}; return c.cost(&cfg, &b, c.born) }
	if d := step(stepStats{DecodeSeqs: 1, ContextTokens: 1000}); d < 9*time.Millisecond || d > 12*time.Millisecond {
		t.Errorf("batch 1: %v", d)
	}
	if d := step(stepStats{DecodeSeqs: 64, ContextTokens: 64 * 1500}); d < 15*time.Millisecond || d > 20*time.Millisecond {
		t.Errorf("batch 64: %v", d)
	}
	if d := step(stepStats{PrefillTokens: 1000}); d < 35*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("1000-token prefill: %v", d)
	}
}
