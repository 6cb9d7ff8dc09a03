package sim

import (
	"testing"
	"time"
)

// startVirtual runs a simulator on virtual time (Options.VirtualTime)
// behind httptest and stops both at the end of the test.
func startVirtual(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	return startWith(t, cfg, Options{VirtualTime: true})
}

// together sends n streaming completions built by body(i) at the same
// virtual instant: the engine is held until all n sit in its inbox, then
// released, and together waits for every response. However the machine
// schedules the client goroutines, the server sees n requests arriving at
// once, as a server slower than its clients would.
func together(t *testing.T, srv *Server, url string, n int, body func(i int) string) {
	t.Helper()
	srv.eng.hold(true)
	wait := send(t, url, n, body)
	// Bounded only so that a broken handler fails instead of hanging; on a
	// loaded machine this merely takes longer.
	deadline := time.Now().Add(2 * time.Minute)
	for srv.eng.submitted() < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	got := srv.eng.submitted()
	srv.eng.hold(false)
	wait()
	if got < n {
		t.Fatalf("only %d of %d requests reached the engine in 2 minutes", got, n)
	}
}

// TestVirtualTimeStampsTheModel: on virtual time a lone request's stamps
// are the cost model's step durations, summed: arrival at the clock's
// epoch, the first token one prefill step later, the finish after one
// decode step per further token. Jitter is off, so the figures are exact
// (to the nanosecond each step's float cost is rounded to).
func TestVirtualTimeStampsTheModel(t *testing.T) {
	cfg := fastConfig(t)
	cfg.JitterCV = 0
	srv, url := startVirtual(t, cfg)
	post(t, url, "/v1/completions", `{"prompt":[1,2,3,4],"max_tokens":5,"ignore_eos":true}`)
	r := srv.Records()[0]
	step := func(decodeSeqs, prefill, ctx int) time.Duration {
		b := batch{stats: stepStats{DecodeSeqs: decodeSeqs, PrefillTokens: prefill, ContextTokens: ctx}}
		return srv.eng.core.cost(&cfg, &b, virtualEpoch)
	}
	prefill := step(0, 4, 0)
	decode := step(1, 0, 4) + step(1, 0, 5) + step(1, 0, 6) + step(1, 0, 7)
	if !r.Arrival.Equal(virtualEpoch) || !r.Scheduled.Equal(virtualEpoch) {
		t.Errorf("arrival %v, scheduled %v: want both at the virtual epoch %v", r.Arrival, r.Scheduled, virtualEpoch)
	}
	if got := r.FirstToken.Sub(r.Arrival); got != prefill {
		t.Errorf("TTFT %v, want one prefill step of 4 tokens, %v", got, prefill)
	}
	if got := r.Finished.Sub(r.FirstToken); got != decode {
		t.Errorf("first token to finish %v, want four decode steps, %v", got, decode)
	}
	if st := srv.Stats(); st.Slips != 0 || st.TTFT.Count != 1 || st.TTFT.Mean() != prefill {
		t.Errorf("stats: %d slips, TTFT summary %+v; want none and one TTFT of %v", st.Slips, st.TTFT, prefill)
	}
}

// hold pauses the engine before its next step, leaving submitted sequences
// in the inbox (on), or lets it go on (off). A test on virtual time holds the engine while it
// sends concurrent requests, so they all arrive at the same virtual instant
// and queue behind each other as they would on a server that is slower than
// its clients, whatever order and pace the machine gave their goroutines.
func (e *engine) hold(on bool) {
	e.mu.Lock()
	e.held = on
	e.mu.Unlock()
	e.signal()
}

// submitted is how many sequences wait in the inbox for the engine.
func (e *engine) submitted() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.inbox)
}
