package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/sim"
)

// startSim runs the simulator with the fast preset changed by mod.
func startSim(t testing.TB, mod func(*sim.Config)) (*sim.Server, string) {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(&cfg)
	}
	srv := sim.New(cfg)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return srv, ts.URL
}

// TestClientMatchesSimulator compares what the client measured with the
// simulator's own record of each request: TTFT and E2EL can only exceed
// the server's by the transport and parsing delay, and the mean ITL must
// match the simulator's per-token ITL.
func TestClientMatchesSimulator(t *testing.T) {
	srv, url := startSim(t, func(c *sim.Config) { c.DecodeFixed = sim.Duration(5 * time.Millisecond) })
	var detail bytes.Buffer
	r := newRunner(t, url, func(c *Config) { c.Detailed = &detail })
	res, err := r.Run(context.Background(), manifest(16, 8, 0, 24), 1)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]sim.Record{}
	for _, rec := range srv.Records() {
		truth[rec.RequestID] = rec
	}
	sc := bufio.NewScanner(&detail)
	n := 0
	for sc.Scan() {
		var d Detail
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		rec, ok := truth[fmt.Sprintf("perfgate-%s-1-t0-r%d", r.nonce, d.Index)] // the Runner's first trial
		if !ok {
			t.Fatalf("request %d: no simulator record", d.Index)
		}
		simTTFT := ms(rec.FirstToken.Sub(rec.Arrival))
		simE2EL := ms(rec.Finished.Sub(rec.Arrival))
		// The client clock starts before the POST and stops after the
		// bytes arrive: never below the server's figure (1 us rounding),
		// and above it only by transport + scheduling (generous bound for
		// a loaded 2-core machine; ten times that under -race).
		if d.TTFTMs < simTTFT-0.001 || d.TTFTMs > simTTFT+25*slack {
			t.Errorf("request %d: client TTFT %.3f ms, simulator %.3f ms", d.Index, d.TTFTMs, simTTFT)
		}
		if d.E2ELMs < simE2EL-25*slack || d.E2ELMs > simE2EL+25*slack {
			t.Errorf("request %d: client E2EL %.3f ms, simulator %.3f ms", d.Index, d.E2ELMs, simE2EL)
		}
		if d.OutputTokens != rec.CompletionTokens || d.Chunks != rec.Chunks {
			t.Errorf("request %d: %d tokens in %d chunks, simulator %d in %d", d.Index, d.OutputTokens, d.Chunks, rec.CompletionTokens, rec.Chunks)
		}
		n++
	}
	if n != 16 {
		t.Fatalf("%d records", n)
	}
	st := srv.Stats()
	simITL := ms(st.ITL.Mean())
	got := res.Trials[0].Values["itl_token_ms.mean"]
	if math.Abs(got-simITL) > 0.1*slack*simITL {
		t.Errorf("client per-token ITL mean %.3f ms, simulator %.3f ms (want within 10%%)", got, simITL)
	}
}

// TestSimulatorFaultsCountedByType: every fault the simulator injected
// shows up as a failure of the matching type.
func TestSimulatorFaultsCountedByType(t *testing.T) {
	srv, url := startSim(t, func(c *sim.Config) {
		c.Faults = sim.Faults{HTTP500Rate: 0.15, HTTP429Rate: 0.1, StreamErrorRate: 0.15, StreamErrorAfter: 2, DropRate: 0.15, DropAfter: 2}
	})
	r := newRunner(t, url, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(80, 16, 0, 8), 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	f := srv.Stats().Faults
	want := map[string]int64{"http_500": f["http_500"], "http_429": f["http_429"], "stream_error": f["stream_error"]}
	for k, v := range want {
		if int64(tr.Errors[k]) != v || v == 0 {
			t.Errorf("errors[%s] = %d, simulator injected %d", k, tr.Errors[k], v)
		}
	}
	if cut := int64(tr.Errors["truncated"] + tr.Errors["connection_reset"]); cut != f["drop"] || cut == 0 {
		t.Errorf("truncated+reset = %d, simulator dropped %d (errors %v)", cut, f["drop"], tr.Errors)
	}
	total := f["http_500"] + f["http_429"] + f["stream_error"] + f["drop"]
	if int64(tr.Failed) != total || tr.Completed+tr.Failed != 80 || tr.Valid {
		t.Errorf("failed %d completed %d, simulator faults %d; valid %v", tr.Failed, tr.Completed, total, tr.Valid)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
