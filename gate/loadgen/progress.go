package loadgen

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// progress reports a trial as it runs: a live bar redrawn in place on a
// terminal, or a plain line every ProgressInterval for CI logs. A nil
// *progress does nothing, so warmups run without one.
type progress struct {
	r        *Runner
	m        *workload.Manifest
	trial    int
	of       int
	begin    time.Time
	done     atomic.Int64
	inflight atomic.Int64
	errors   atomic.Int64
	tokens   atomic.Int64
	quit     chan struct{}
	wg       sync.WaitGroup
}

func (r *Runner) startProgress(m *workload.Manifest, trial, of int) *progress {
	p := &progress{r: r, m: m, trial: trial, of: of, begin: time.Now(), quit: make(chan struct{})}
	if r.cfg.Progress == nil {
		return p
	}
	every := r.cfg.ProgressInterval
	if r.cfg.Terminal {
		every = 200 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.print()
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

func (p *progress) started() {
	if p != nil {
		p.inflight.Add(1)
	}
}

func (p *progress) finished(x *exchange) {
	if p == nil {
		return
	}
	p.inflight.Add(-1)
	p.done.Add(1)
	if x.rec.Success {
		p.tokens.Add(int64(x.rec.OutputTokens))
	} else {
		p.errors.Add(1)
	}
}

func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.quit)
	p.wg.Wait()
	if p.r.cfg.Progress != nil && p.r.cfg.Terminal {
		fmt.Fprint(p.r.cfg.Progress, "\r\x1b[K")
	}
}

// line is the shared status text: requests done, in flight, errors, tok/s.
func (p *progress) line() string {
	el := time.Since(p.begin).Seconds()
	tps := 0.0
	if el > 0 {
		tps = float64(p.tokens.Load()) / el
	}
	return fmt.Sprintf("%s trial %d/%d: %d/%d done, %d in flight, %d errors, %.0f tok/s",
		p.m.Cell, p.trial+1, max(p.of, p.trial+1), p.done.Load(), len(p.m.Requests), p.inflight.Load(), p.errors.Load(), tps)
}

func (p *progress) print() {
	w := p.r.cfg.Progress
	if !p.r.cfg.Terminal {
		fmt.Fprintln(w, p.line())
		return
	}
	const width = 24
	frac := float64(p.done.Load()) / float64(max(1, len(p.m.Requests)))
	full := int(frac * width)
	fmt.Fprintf(w, "\r\x1b[K[%s%s] %s", strings.Repeat("#", full), strings.Repeat(".", width-full), p.line())
}

// progressDone prints a trial's one-line summary.
func (r *Runner) progressDone(m *workload.Manifest, t result.Trial, idx, of int) {
	if r.cfg.Progress == nil {
		return
	}
	status := "valid"
	if !t.Valid {
		status = "INVALID: " + t.InvalidReason
	}
	// Chunks of several tokens change what ITL means: say so on the line
	// (one token a chunk, the usual case, adds nothing).
	chunks := ""
	if tc := t.Tokens; tc != nil && tc.TokensPerChunk > metrics.WarnTokensPerChunk {
		chunks = fmt.Sprintf(" (%.1f tokens a chunk, %s)", tc.TokensPerChunk, tc.Method)
	}
	fmt.Fprintf(r.cfg.Progress, "%s trial %d/%d: %d ok, %d failed in %.1f s, %.0f tok/s, TTFT p99 %.1f ms, ITL p99 %.2f ms%s [%s]\n",
		m.Cell, idx+1, max(of, idx+1), t.Completed, t.Failed, t.DurationS, t.Values["output_throughput"],
		t.Values["ttft_ms.p99"], t.Values["itl_ms.p99"], chunks, status)
}
