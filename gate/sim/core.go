package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// core is the scheduler and cost model without any clock or goroutine: the
// caller asks for a batch, decides when the step ends, and reports the end
// time. Keeping time outside makes the schedule testable and deterministic
// (see TestSameSeedSameSchedule) while the real engine drives it with sleeps.
type core struct {
	waiting []*seq // front is next; preempted sequences go back to the front
	running []*seq // admission order; the newest is preempted first
	used    int    // KV blocks held by running sequences
	cache   *prefixCache
	jitter  *rand.Rand
	seed    uint64
	sink    sink
	born    time.Time
	// received is read for drift; the server increments it.
	received func() int64
	// session holds the per-start factors; newCore starts without offset.
	session Session
}

// sink receives what the engine produced; the server turns it into metrics.
type sink interface {
	stepDone(st stepStats)
	preempted()
	prefixQuery(queried, hit int)
	scheduled(s *seq, at time.Time)
	token(s *seq, at time.Time, first bool)
	finished(s *seq, at time.Time, reason string)
	rejected(s *seq, at time.Time)
}

// batch is one step's work: scheduled token counts per sequence.
type batch struct {
	seqs   []*seq
	tokens []int
	stats  stepStats
}

// stepStats describes one step for the cost model and the metrics.
type stepStats struct {
	DecodeSeqs    int
	PrefillTokens int
	ContextTokens int
	Duration      time.Duration
	// Start is when the step began and Ops its duration in nanoseconds
	// split by the cost model's terms (jitter and drift included, not
	// rounded), which a profile records as kernels (see profile.go).
	Start time.Time
	Ops   [numOps]float64
}

func newCore(seed uint64, born time.Time, s sink) *core {
	return &core{cache: newPrefixCache(0), jitter: newRand(seed, 1), seed: seed, sink: s, born: born,
		received: func() int64 { return 0 }, session: Session{Prefill: 1, Decode: 1}}
}

func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

func (c *core) idle() bool { return len(c.waiting) == 0 && len(c.running) == 0 }

func blocksFor(tokens, blockSize int) int { return (tokens + blockSize - 1) / blockSize }

// abort removes a sequence wherever it is and frees its KV blocks.
func (c *core) abort(s *seq) {
	if i := slices.Index(c.running, s); i >= 0 {
		c.running = slices.Delete(c.running, i, i+1)
		c.used -= s.blocks
		s.blocks = 0
	} else if i := slices.Index(c.waiting, s); i >= 0 {
		c.waiting = slices.Delete(c.waiting, i, i+1)
	}
	s.finished = true
}

// schedule builds the next batch the way vLLM's v1 scheduler does: running
// sequences first (one decode token each, or the next prefill chunk) within
// the token budget, preempting the newest running sequence when the KV cache
// cannot grow; then, if nothing was preempted, waiting sequences in order
// while seats, budget and KV blocks allow.
func (c *core) schedule(cfg *Config) batch {
	if cfg.Seed != c.seed {
		c.seed = cfg.Seed
		c.jitter = newRand(cfg.Seed, 1)
	}
	totalBlocks := cfg.KVCacheTokens / cfg.BlockSize
	c.cache.capacity = totalBlocks
	c.cache.trim()
	var b batch
	budget := cfg.MaxBatchedTokens
	preempted := false
	for i := 0; i < len(c.running) && budget > 0; i++ {
		s := c.running[i]
		n := min(s.numTokens()-s.computed, budget)
		need := blocksFor(s.computed+n, cfg.BlockSize) - s.blocks
		self := false
		for need > 0 && c.used+need > totalBlocks && !self {
			v := c.running[len(c.running)-1]
			c.preempt(v)
			preempted = true
			self = v == s
		}
		if self {
			break
		}
		c.used += need
		s.blocks += need
		b.add(s, n)
		budget -= n
	}
	for !preempted && len(c.waiting) > 0 && len(c.running) < cfg.MaxNumSeqs && budget > 0 {
		s := c.waiting[0]
		if s.computed == 0 && cfg.PrefixCaching {
			hashes := blockHashes(s.prompt, s.salt, cfg.BlockSize)
			// Like vLLM, always recompute at least the last prompt token so
			// there are logits to sample from.
			maxHit := (len(s.prompt) - 1) / cfg.BlockSize
			hit := min(c.cache.hits(hashes), maxHit)
			s.computed = hit * cfg.BlockSize
			if !s.started {
				s.cachedHit = s.computed
				c.sink.prefixQuery(len(s.prompt), s.computed)
			}
		}
		n := min(s.numTokens()-s.computed, budget)
		need := blocksFor(s.computed+n, cfg.BlockSize)
		if c.used+need > totalBlocks {
			s.computed = 0
			break
		}
		c.waiting = c.waiting[1:]
		c.running = append(c.running, s)
		c.used += need
		s.blocks = need
		if !s.started {
			s.started = true
			s.eosAt = 0
			if !s.ignoreEOS {
				s.eosAt = drawEOS(s.rng, cfg.EOSMeanTokens, s.minTokens)
			}
		}
		b.add(s, n)
		budget -= n
	}
	return b
}

func (b *batch) add(s *seq, n int) {
	b.seqs = append(b.seqs, s)
	b.tokens = append(b.tokens, n)
	if s.generated > 0 && n == 1 && s.computed == s.numTokens()-1 {
		b.stats.DecodeSeqs++
		b.stats.ContextTokens += s.computed
	} else {
		b.stats.PrefillTokens += n
	}
}

// preempt frees a running sequence's KV blocks and puts it back at the head
// of the queue; it will recompute its prompt and output so far.
func (c *core) preempt(s *seq) {
	i := slices.Index(c.running, s)
	c.running = slices.Delete(c.running, i, i+1)
	c.used -= s.blocks
	s.blocks = 0
	s.computed = 0
	s.preemptions++
	c.waiting = slices.Insert(c.waiting, 0, s)
	c.sink.preempted()
}

// cost is the step duration for batch b starting at start.
func (c *core) cost(cfg *Config, b *batch, start time.Time) time.Duration {
	st := b.stats
	var ops [numOps]float64
	if st.DecodeSeqs > 0 {
		d := cfg.DecodeScale * c.session.Decode
		ops[opMLP] = (float64(cfg.DecodeFixed) + float64(cfg.DecodePerSeq)*float64(st.DecodeSeqs)) * d
		ops[opAttention] = cfg.PerContextTokenNs * float64(st.ContextTokens) * d
	}
	ops[opSampling] = float64(cfg.StepBase) * cfg.BaseScale
	ops[opPrefill] = float64(cfg.PrefillPerToken) * float64(st.PrefillTokens) * cfg.PrefillScale * c.session.Prefill
	f := 1.0
	if cfg.JitterCV > 0 {
		// Log-normal with mean 1 and the requested coefficient of variation.
		sigma2 := math.Log1p(cfg.JitterCV * cfg.JitterCV)
		f = math.Exp(c.jitter.NormFloat64()*math.Sqrt(sigma2) - sigma2/2)
	}
	drift := 1 + cfg.DriftPctPerMinute/100*start.Sub(c.born).Minutes() +
		cfg.DriftPctPer1000Requests/100*float64(c.received())/1000
	f *= max(drift, 0)
	// The same sum as before the split (base + decode + prefill, times
	// jitter and drift), term by term.
	ns := (ops[opSampling] + ops[opMLP] + ops[opAttention] + ops[opPrefill]) * f
	for i := range ops {
		b.stats.Ops[i] = ops[i] * f
	}
	b.stats.Start = start
	b.stats.Duration = time.Duration(ns)
	return b.stats.Duration
}

// complete applies a finished step at time at: computed KV advances, every
// sequence that reached its end samples a token, and finished sequences
// leave the batch and publish their prompt blocks to the prefix cache.
func (c *core) complete(cfg *Config, b *batch, at time.Time) {
	c.sink.stepDone(b.stats)
	for i, s := range b.seqs {
		if s.finished || s.blocks == 0 {
			continue // aborted or preempted during this step
		}
		if s.scheduledAt.IsZero() {
			s.scheduledAt = at.Add(-b.stats.Duration)
			c.sink.scheduled(s, s.scheduledAt)
		}
		wasPrefill := s.computed < len(s.prompt)
		s.computed += b.tokens[i]
		if wasPrefill && s.computed >= len(s.prompt) && cfg.PrefixCaching {
			c.cache.insert(blockHashes(s.prompt, s.salt, cfg.BlockSize))
		}
		if s.computed < s.numTokens() {
			continue // mid-prefill chunk
		}
		c.emit(cfg, s, at)
	}
	c.running = slices.DeleteFunc(c.running, func(s *seq) bool {
		if s.finished {
			c.used -= s.blocks
			s.blocks = 0
		}
		return s.finished
	})
}

// emit samples one token for s and hands it to the output when
// stream_interval and the coalescing window say a chunk is due.
func (c *core) emit(cfg *Config, s *seq, at time.Time) {
	first := s.generated == 0
	text, finish, stopReason := s.nextToken(cfg)
	s.pendTokens++
	s.pendText = append(s.pendText, text...)
	c.sink.token(s, at, first)
	s.lastAt = at
	if first {
		s.firstAt = at
	}
	due := first || finish != "" ||
		(s.pendTokens >= cfg.StreamInterval && at.Sub(s.lastSent) >= cfg.CoalesceWindow.D())
	if !due {
		return
	}
	s.out.push(chunk{index: s.index, text: string(s.pendText), tokens: s.pendTokens, total: s.generated,
		finish: finish, stopReason: stopReason, at: at})
	s.chunks++
	s.pendTokens = 0
	s.pendText = s.pendText[:0]
	s.lastSent = at
	if finish != "" {
		s.finished = true
		c.sink.finished(s, at, finish)
	}
}

// reject ends the sequence at the head of the queue with finish_reason
// "abort" because it can never be scheduled.
func (c *core) reject(at time.Time) {
	s := c.waiting[0]
	c.waiting = c.waiting[1:]
	s.computed = 0
	s.finished = true
	s.out.push(chunk{index: s.index, text: string(s.pendText), tokens: s.pendTokens, total: s.generated,
		finish: "abort", at: at})
	c.sink.rejected(s, at)
}
