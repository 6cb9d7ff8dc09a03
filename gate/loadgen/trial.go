package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// RunTrials appends n measured trials of m to res (indices continue after
// the existing trials), each preceded by its warmups. On context
// cancellation it keeps the finished requests of the interrupted trial,
// marks res incomplete and returns an error wrapping ErrInterrupted. A trial
// in which every request failed stops the run with an error naming the URL.
func (r *Runner) RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	if len(m.Requests) == 0 {
		return fmt.Errorf("workload %s: no requests", m.Cell)
	}
	// A capacity cell's or share-of-saturation cell's requests are timed
	// for 1 req/s; sent as they are, they would measure a load nobody
	// asked for. pipeline.Capacity chooses the load and calls At.
	if m.IsCapacity() || m.SaturationShare > 0 {
		return fmt.Errorf("workload %s: its load is chosen at run time; run it through pipeline.Capacity", m.Cell)
	}
	model := res.Server.Model
	if model == "" {
		model = m.Model
	}
	defer func() { res.FinishedAt = time.Now().UTC() }()
	fail := func(reason string, err error) error {
		res.Complete, res.IncompleteReason = false, reason
		return err
	}
	// The client's own descriptor limit, checked before the first request:
	// hitting it mid-trial would read as the server refusing connections.
	if err := ensureFDs(m); err != nil {
		return fail(err.Error(), err)
	}
	c, err := r.withHeaders(r.clientFor(m), m)
	if err != nil {
		return fail(err.Error(), err)
	}
	prof, err := r.resolveEngine(ctx, c.http) // Prepare resolved it already
	if err != nil {
		return fail(err.Error(), err)
	}
	if prof.ClosesAfterStream {
		// The profile is known now: a client without connection reuse.
		if c, err = r.withHeaders(r.clientFor(m), m); err != nil {
			return fail(err.Error(), err)
		}
	}
	if r.cfg.ResetPrefixCache && prof.CacheReset == nil {
		err := r.resetPrefixCache(ctx, c.http, prof) // the error saying why
		return fail(err.Error(), err)
	}
	cm, err := r.calibrate(ctx, m, res, c, model)
	if err != nil {
		return fail(err.Error(), err)
	}
	m = cm
	m, vocabWarn := fitVocab(m, int(r.vocab.Load()))
	if !r.probed {
		r.probed = true
		r.tok = r.probeTokenizer(ctx, c, model, prof)
	}
	if r.tok != nil {
		r.tok.c = c
	}
	c.keepTexts = r.tok != nil
	for k := 0; k < n; k++ {
		idx := len(res.Trials)
		if ctx.Err() != nil {
			return fail("interrupted before trial "+fmt.Sprint(idx), fmt.Errorf("%s: %w", m.Cell, ErrInterrupted))
		}
		tag := fmt.Sprintf("%s-%d", r.nonce, r.seq.Add(1))
		warm, err := r.warmup(ctx, m, c, model, tag)
		if err != nil {
			return fail(err.Error(), err)
		}
		if r.cfg.ResetPrefixCache {
			if err := r.resetPrefixCache(ctx, c.http, prof); err != nil {
				return fail(err.Error(), err)
			}
		}
		for _, h := range r.cfg.Hooks {
			if err := h.BeforeTrial(ctx, idx); err != nil {
				err = fmt.Errorf("trial %d: before-trial hook: %w", idx, err)
				return fail(err.Error(), err)
			}
		}
		salt := ""
		if r.cfg.CacheSalt {
			salt = "perfgate-" + tag
		}
		bodies, err := encodeBodies(m, m.Requests, model, salt, prof, !r.cfg.NoContinuousUsage)
		if err != nil {
			return fail(err.Error(), err)
		}
		t, interrupted, eos := r.trial(ctx, m, c, idx, n, tag, bodies)
		t.Index = idx
		if warm != "" {
			t.Warnings = append(t.Warnings, warm)
		}
		t.Warnings = append(t.Warnings, engineWarnings(m, prof, eos.exact())...)
		if vocabWarn != "" {
			t.Warnings = append(t.Warnings, vocabWarn)
		}
		if h := invalidTokenHint(m, t); h != "" && t.Completed > 0 {
			t.Warnings = append(t.Warnings, h)
		}
		// AfterTrial runs even for an interrupted trial, so server-side
		// counters stay paired with what was measured; after an interrupt
		// it gets a second at most, since the partial result must be
		// written before the CI runner's SIGTERM (docs/gate.md).
		hctx, cancelHooks := context.WithoutCancel(ctx), context.CancelFunc(func() {})
		if interrupted {
			hctx, cancelHooks = context.WithTimeout(hctx, interruptedHookTimeout)
		}
		for _, h := range r.cfg.Hooks {
			if err := h.AfterTrial(hctx, idx, &t); err != nil {
				cancelHooks()
				res.Trials = append(res.Trials, t)
				err = fmt.Errorf("trial %d: after-trial hook: %w", idx, err)
				return fail(err.Error(), err)
			}
		}
		cancelHooks()
		res.Trials = append(res.Trials, t)
		r.progressDone(m, t, idx, n)
		if interrupted {
			return fail(fmt.Sprintf("interrupted during trial %d", idx), fmt.Errorf("%s: %w", m.Cell, ErrInterrupted))
		}
		if t.Completed == 0 {
			err := fmt.Errorf("server at %s: every request of trial %d failed (%s)%s", res.Server.URL, idx, t.InvalidReason, refusalHint(m, prof, t))
			return fail(err.Error(), err)
		}
	}
	r.detail.Lock()
	defer r.detail.Unlock()
	if r.detailErr != nil {
		return fail("writing detailed records failed", fmt.Errorf("write detailed records: %w", r.detailErr))
	}
	return nil
}

// interruptedHookTimeout bounds the AfterTrial hooks of an interrupted
// trial (a /metrics scrape of a server that may be stuck).
const interruptedHookTimeout = time.Second

// trial runs one measured pass over m.Requests and summarises it.
// interrupted is true when ctx was cancelled before every request was sent
// and answered.
func (r *Runner) trial(ctx context.Context, m *workload.Manifest, c *client, idx, of int, tag string, bodies [][]byte) (result.Trial, bool, *eosSeen) {
	acc := metrics.NewAccumulator(metrics.SLO(m.SLO), 0).Percentiles(m.MetricPercentiles...)
	prog := r.startProgress(m, idx, of)
	// Requests whose chunks the server's tokenizer will count wait until
	// the trial is over: counting them during it would load the server.
	type held struct {
		rq *workload.Request
		x  *exchange
	}
	var (
		heldMu sync.Mutex
		later  []held
		resent atomic.Int64
		eos    eosSeen
	)
	sent, cut := r.dispatch(ctx, m, c, bodies, fmt.Sprintf("perfgate-%s-t%d", tag, idx), func(rq *workload.Request, x *exchange) {
		x.rec.IgnoreEOS = m.Sampling.IgnoreEOS
		if x.attempts > 1 {
			resent.Add(1)
		}
		eos.see(&x.rec)
		prog.finished(x)
		if r.tok != nil && needsCount(x) {
			heldMu.Lock()
			later = append(later, held{rq, x})
			heldMu.Unlock()
			return
		}
		x.texts, x.textEnds = nil, nil
		if x.rec.ErrorType != canceled {
			acc.Add(&x.rec)
		}
		r.writeDetail(idx, rq, x)
	}, prog)
	prog.stop()
	var warn string
	if len(later) > 0 && !sent.interrupted {
		xs := make([]*exchange, len(later))
		for i, h := range later {
			xs[i] = h.x
		}
		warn = r.tok.refine(context.WithoutCancel(ctx), xs)
	}
	for _, h := range later {
		acc.Add(&h.x.rec)
		r.writeDetail(idx, h.rq, h.x)
	}
	t := acc.Finish(sent.duration, m.GPUs, r.cfg.Limits)
	if warn != "" {
		t.Warnings = append(t.Warnings, warn)
	}
	if n := int(resent.Load()); n > 0 {
		t.Resent = n
		t.Warnings = append(t.Warnings, resentWarning(n, sent.sent))
	}
	if !sent.interrupted {
		return t, false, &eos
	}
	t.Valid = false
	why := fmt.Sprintf("interrupted: %d of %d requests dispatched", sent.sent, len(m.Requests))
	if cut > 0 {
		why += fmt.Sprintf(", %d in flight cut off after the %v grace period", cut, r.cfg.Grace)
	}
	if t.InvalidReason != "" {
		why += "; " + t.InvalidReason
	}
	t.InvalidReason = why
	return t, true, &eos
}

// dispatchStats describes a finished dispatch.
type dispatchStats struct {
	sent        int
	duration    time.Duration
	interrupted bool
}

// dispatch sends every request at its intended time and calls done for
// each as it finishes (concurrently). It returns when all have finished.
//
// Pacing uses absolute deadlines from one anchor: a late wake-up never
// shifts later arrivals (no cumulative sleeps). Each request runs in its own
// goroutine, so a slow response cannot delay the next arrival; the
// concurrency cap is a semaphore acquired inside that goroutine, and the
// wait for it is client queue time. When ctx is cancelled, dispatch stops
// and requests still in flight get Config.Grace to finish before their
// context is cancelled too; cut counts those cancelled.
func (r *Runner) dispatch(ctx context.Context, m *workload.Manifest, c *client, bodies [][]byte, idPrefix string,
	done func(*workload.Request, *exchange), prog *progress) (st dispatchStats, cut int) {
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(r.cfg.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancelReqs()
		case <-reqCtx.Done():
		}
	})
	defer stopGrace()

	var sem chan struct{}
	if m.Concurrency > 0 {
		sem = make(chan struct{}, m.Concurrency)
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = r.cfg.DefaultTimeout
	}
	url := r.base + endpoint(m)
	var wg sync.WaitGroup
	var cutN atomic.Int64
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	anchor := time.Now()
dispatch:
	for i := range m.Requests {
		rq := &m.Requests[i]
		if wait := time.Until(anchor.Add(rq.Arrival)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				break dispatch
			}
		} else if ctx.Err() != nil {
			break dispatch
		}
		woke := time.Since(anchor)
		st.sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := &exchange{rec: metrics.Request{Intended: rq.Arrival, MaxTokens: rq.MaxTokens, InputTokens: rq.InputTokens}}
			lag := woke - rq.Arrival
			if sem != nil {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return // interrupted before it could be sent: not a request
				}
				defer func() { <-sem }()
			}
			ready := time.Since(anchor)
			prog.started()
			rctx, cancel := context.WithTimeout(reqCtx, timeout)
			defer cancel()
			c.call(rctx, anchor, url, fmt.Sprintf("%s-r%d", idPrefix, rq.Index), bodies[i], x)
			// Lag after the slot: scheduling delay between the slot (or
			// the dispatcher) handing over and the POST starting.
			x.rec.DispatchLag = lag + max(0, x.rec.Sent-ready)
			if x.rec.ErrorType == canceled || (x.rec.ErrorType == "timeout" && reqCtx.Err() != nil) {
				x.rec.ErrorType = canceled
				cutN.Add(1)
			}
			done(rq, x)
		}()
	}
	wg.Wait()
	st.duration = time.Since(anchor)
	st.interrupted = ctx.Err() != nil
	return st, int(cutN.Load())
}

// warmupCount is how many warmup requests precede each trial.
func (r *Runner) warmupCount(m *workload.Manifest) int {
	if r.cfg.Warmups < 0 {
		return len(m.Warmups)
	}
	return r.cfg.Warmups
}

// warmup sends the warmup requests (closed loop under the manifest's
// concurrency cap) and waits for them. They are not measured; a warning
// is returned when some failed. Warmups use the manifest's distinct warmup
// prompts, cycled with a fresh cache salt when more are asked for than the
// manifest holds.
func (r *Runner) warmup(ctx context.Context, m *workload.Manifest, c *client, model, tag string) (string, error) {
	n := r.warmupCount(m)
	if n == 0 {
		return "", nil
	}
	if len(m.Warmups) == 0 {
		return "", fmt.Errorf("workload %s: %d warmups asked for but the manifest has no warmup requests", m.Cell, n)
	}
	reqs := make([]workload.Request, n)
	bodies := make([][]byte, n)
	for i := range reqs {
		reqs[i] = m.Warmups[i%len(m.Warmups)]
		reqs[i].Arrival, reqs[i].Index = 0, i
		salt := ""
		if r.cfg.CacheSalt || i >= len(m.Warmups) {
			salt = fmt.Sprintf("perfgate-%s-w%d", tag, i/len(m.Warmups))
		}
		b, err := encodeBodies(m, reqs[i:i+1], model, salt, r.profile(), !r.cfg.NoContinuousUsage)
		if err != nil {
			return "", err
		}
		bodies[i] = b[0]
	}
	wm := *m
	wm.Requests, wm.Rate = reqs, 0
	var mu sync.Mutex
	failed := map[string]int{}
	st, _ := r.dispatch(ctx, &wm, c, bodies, "perfgate-"+tag+"-w", func(_ *workload.Request, x *exchange) {
		if !x.rec.Success {
			mu.Lock()
			failed[x.rec.ErrorType]++
			mu.Unlock()
		}
	}, nil)
	if st.interrupted {
		return "", fmt.Errorf("%s: %w during warmup", m.Cell, ErrInterrupted)
	}
	total := 0
	for _, v := range failed {
		total += v
	}
	if total == 0 {
		return "", nil
	}
	return fmt.Sprintf("warmup: %d of %d requests failed (%v)", total, n, failed), nil
}

// unwrapURLError drops net/http's "Post \"url\":" prefix, which repeats
// the URL (callers name it once, redacted).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// resentWarning says what resending cost and what would avoid it.
func resentWarning(n, of int) string {
	return fmt.Sprintf("%d of %d requests were sent again on a fresh connection: the server closed the kept-alive connection they picked before answering "+
		"(it offers keep-alive but closes connections); their latency includes the closed attempt. "+
		"If the server closes every connection after a stream, set server.engine to its profile if it has one that says so (llamacpp), "+
		"so each request opens its own connection instead (docs/run.md#connections)", n, of)
}
