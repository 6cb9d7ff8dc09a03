package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// TestGateGoodputFallsToZero is issue 14's defect 1 end to end: a gate on
// request_goodput and tpot_ms.p50 (PERFGATE_POLICY_GATED) with a TTFT SLO
// of 300 ms, against a candidate whose first token comes 600 ms late, so
// every request misses the SLO and request_goodput is 0 in every trial.
// That is the largest possible regression: exit 1, named on the first
// line, never INCONCLUSIVE ±0.0 % and exit 0.
func TestGateGoodputFallsToZero(t *testing.T) {
	// Not parallel: its baseline must meet the 300 ms TTFT SLO in real
	// time, and the other end-to-end runs would load the machine it measures.
	if testing.Short() {
		t.Skip("end-to-end gate test against the simulator")
	}
	srv := sim.New(gateSimConfig(t))
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	dir := t.TempDir()
	baselines := filepath.Join(dir, "baselines")
	gate := func(out string) (ExitCode, string, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), []string{"gate", "--config", "testdata/gate/perfgate.yaml", "--url", ts.URL,
			"--baselines", baselines, "-o", filepath.Join(dir, out), "--workloads", "testdata/gate/slo.yaml",
			laxLag[0], laxLag[1]}, // one invalid trial of three is more than the 25 % an arm may have
			Streams{Out: &stdout, Err: &stderr, Environ: testEnviron("PERFGATE_POLICY_GATED=request_goodput,tpot_ms.p50")})
		return code, stdout.String(), stderr.String()
	}

	// The baseline: every request meets the SLO.
	if code, out, errOut := gate("base"); code != ExitInvalid || !strings.Contains(out, "missing-baseline") {
		t.Fatalf("baseline run: exit %d, want 2 (missing baseline)\n%s\n%s", code, out, errOut)
	}
	r, err := result.Read(filepath.Join(dir, "base", "results", "slo.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := r.Samples("request_goodput")
	if len(g) < 2 {
		t.Fatalf("baseline request_goodput %v: want at least 2 valid trials", g)
	}
	for _, v := range g {
		if v <= 0 {
			t.Fatalf("baseline request_goodput %v: the simulator missed a 300 ms TTFT SLO with every request of a trial", g)
		}
	}
	if err := result.Write(filepath.Join(baselines, "e2e", "slo.json"), r); err != nil {
		t.Fatal(err)
	}

	if err := srv.Update(func(c *sim.Config) { c.FirstTokenDelay = sim.Duration(600 * time.Millisecond) }); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := gate("late")
	first, _, _ := strings.Cut(out, "\n")
	if code != ExitRegression || !strings.HasPrefix(first, "REGRESSION in slo") || !strings.Contains(first, "request_goodput") {
		t.Fatalf("every request misses the SLO: exit %d, first line %q; want exit 1 naming request_goodput\n%s\n%s", code, first, out, errOut)
	}
	if !strings.Contains(out, "largest possible regression") {
		t.Errorf("the report does not say why a fall to zero is a regression:\n%s", out)
	}
}
