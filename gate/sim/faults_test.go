package sim

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		kind   string
		status int
		set    func(*Faults)
	}{
		{faultHTTP500, 500, func(f *Faults) { f.HTTP500Rate = 1 }},
		{faultHTTP429, 429, func(f *Faults) { f.HTTP429Rate = 1 }},
		{faultHTTP503, 503, func(f *Faults) { f.HTTP503Rate = 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			cfg := fastConfig(t)
			tc.set(&cfg.Faults)
			srv, url := start(t, cfg)
			for _, path := range []string{"/v1/completions", "/v1/chat/completions"} {
				resp, raw := post(t, url, path, `{"prompt":"x","messages":[{"role":"user","content":"x"}],"max_tokens":3,"stream":true}`)
				var e apiError
				if resp.StatusCode != tc.status || json.Unmarshal(raw, &e) != nil || e.Error.Code != tc.status || e.Error.Type != errorTypes[tc.status] {
					t.Errorf("%s: status %d body %s", path, resp.StatusCode, raw)
				}
			}
			if got := srv.Stats().Faults[tc.kind]; got != 2 {
				t.Errorf("counted %d %s faults, want 2", got, tc.kind)
			}
			_, body := get(t, url, "/metrics")
			if !strings.Contains(string(body), `sim_faults_total{kind="`+tc.kind+`"} 2`) {
				t.Errorf("/metrics lacks the fault count:\n%s", body)
			}
		})
	}
}

// TestFailRateIsSeededFraction: a 30% rate fails about 30% of requests, the
// same ones for the same seed, and every failure is counted.
func TestFailRateIsSeededFraction(t *testing.T) {
	failures := func(seed uint64) []bool {
		cfg := fastConfig(t)
		cfg.Seed = seed
		cfg.Faults.HTTP500Rate = 0.3
		srv, url := start(t, cfg)
		var out []bool
		n := 0
		for range 200 {
			resp, _ := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":1}`)
			out = append(out, resp.StatusCode == 500)
			if resp.StatusCode == 500 {
				n++
			}
		}
		if got := srv.Stats().Faults[faultHTTP500]; got != int64(n) {
			t.Errorf("counted %d, observed %d", got, n)
		}
		// Binomial(200, 0.3): mean 60, sd 6.5; +-4.6 sd.
		if n < 30 || n > 90 {
			t.Errorf("%d of 200 failed at rate 0.3", n)
		}
		return out
	}
	a, b, c := failures(5), failures(5), failures(6)
	if !equalBools(a, b) {
		t.Error("the same seed failed different requests")
	}
	if equalBools(a, c) {
		t.Error("different seeds failed the same requests")
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStreamErrorFault(t *testing.T) {
	cfg := fastConfig(t)
	cfg.Faults.StreamErrorRate, cfg.Faults.StreamErrorAfter = 1, 3
	srv, url := start(t, cfg)
	resp, raw := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":10,"stream":true,"stream_options":{"include_usage":true}}`)
	fs := frames(t, raw)
	if resp.StatusCode != 200 || len(fs) != 4 {
		t.Fatalf("status %d, %d frames: %s", resp.StatusCode, len(fs), raw)
	}
	for _, f := range fs[:3] {
		if len(f.Choices) != 1 || f.Error != nil {
			t.Errorf("token frame %+v", f)
		}
	}
	if e := fs[3].Error; e == nil || e.Code != 500 || e.Message == "" {
		t.Errorf("last frame %+v is not an error event", fs[3])
	}
	// Non-streaming: the same fault is a 500.
	resp, _ = post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":10}`)
	if resp.StatusCode != 500 {
		t.Errorf("non-streaming status %d", resp.StatusCode)
	}
	if got := srv.Stats().Faults[faultStreamError]; got != 2 {
		t.Errorf("counted %d stream errors", got)
	}
}

func TestDropFault(t *testing.T) {
	cfg := fastConfig(t)
	cfg.Faults.DropRate, cfg.Faults.DropAfter = 1, 2
	srv, url := start(t, cfg)
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":1000,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Fatalf("the stream ended cleanly: %s", raw)
	}
	if n := strings.Count(string(raw), `"text":`); n != 2 || strings.Contains(string(raw), "[DONE]") {
		t.Errorf("before the cut: %d token chunks, body %q", n, raw)
	}
	waitFor(t, "the aborted sequence", func() bool { st := srv.Stats(); return st.Aborted == 1 && st.Running == 0 })
	if got := srv.Stats().Faults[faultDrop]; got != 1 {
		t.Errorf("counted %d drops", got)
	}
}

func TestStallFault(t *testing.T) {
	cfg := fastConfig(t)
	cfg.Faults.StallRate, cfg.Faults.StallAfter, cfg.Faults.StallFor = 1, 2, Duration(time.Second)
	srv, url := start(t, cfg)
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":4,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var at []time.Time
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: {") {
			at = append(at, time.Now())
		}
	}
	if len(at) != 4 {
		t.Fatalf("%d token chunks", len(at))
	}
	// The gap is measured where the bytes arrive: if token 2 reaches this
	// reader late, the measured gap is that much shorter than the server's
	// stall. Normal gaps are about 1 ms; a stall of a whole second leaves
	// room for hundreds of milliseconds of a loaded machine's scheduling
	// delay on either side and still proves the stall sits after token 2.
	stalled, before := at[2].Sub(at[1]), at[1].Sub(at[0])
	if stalled < 600*time.Millisecond || before > stalled/2 {
		t.Errorf("gap before the stall %v, after 2 tokens %v: want about 1 ms, then about 1 s", before, stalled)
	}
	if got := srv.Stats().Faults[faultStall]; got != 1 {
		t.Errorf("counted %d stalls", got)
	}
}

func TestSlowStartFault(t *testing.T) {
	cfg := fastConfig(t)
	cfg.Faults.SlowStart = Duration(200 * time.Millisecond)
	srv, url := start(t, cfg)
	if resp, _ := get(t, url, "/health"); resp.StatusCode != 503 {
		t.Errorf("/health during slow start: %d", resp.StatusCode)
	}
	waitFor(t, "/health 200", func() bool { resp, _ := get(t, url, "/health"); return resp.StatusCode == 200 })
	if srv.Stats().Faults[faultSlowStart] == 0 {
		t.Error("slow-start 503s not counted")
	}
}

func TestExitAfterRequests(t *testing.T) {
	cfg := fastConfig(t)
	cfg.Faults.ExitAfterRequests = 2
	var exits atomic.Int32
	srv, err := NewServer(cfg, Options{OnExit: func() { exits.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	for i := range 4 {
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":2}`))
		if i < 2 {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("request %d before the limit: %v %v", i, resp, err)
			}
		} else if err == nil {
			t.Errorf("request %d after the limit got %d, want a cut connection", i, resp.StatusCode)
		}
		if err == nil {
			resp.Body.Close()
		}
	}
	waitFor(t, "OnExit", func() bool { return exits.Load() == 1 })
	if got := srv.Stats().Faults[faultExit]; got != 2 {
		t.Errorf("counted %d exit refusals", got)
	}
}

// TestEngineCountsSlips: an engine kept from running for longer than
// maxLag (here by holding the lock its every step takes, as a machine that
// gives its goroutine no CPU would) restarts its schedule and counts a
// slip; the tests that check the model's timing read the count to tell a
// stalled machine from a wrong measurement.
func TestEngineCountsSlips(t *testing.T) {
	srv, url := start(t, fastConfig(t)) // 1 ms steps
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":400,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(t, "a running sequence", func() bool { return srv.Stats().Running == 1 })
	before := srv.Stats().Slips
	srv.met.mu.Lock()
	time.Sleep(3 * maxLag)
	srv.met.mu.Unlock()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Slips - before; got < 1 {
		t.Errorf("%d slips after the engine was held for %v, want at least 1", got, 3*maxLag)
	}
}
