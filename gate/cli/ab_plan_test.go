package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// abPlanDir writes the comparison.json of a 16-block experiment (blocks
// every 100 s, a per-start CV of 2 % on every latency) to a new directory.
func abPlanDir(t *testing.T) (string, *verdict.Comparison) {
	t.Helper()
	order, _ := ab.Order(16, 0)
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	x := &result.AB{Order: order}
	for i := range order {
		x.Blocks = append(x.Blocks, result.Block{Index: i + 1, Arm: strings.ToLower(order[i : i+1]), StartupS: 40, StartedAt: t0.Add(time.Duration(i) * 100 * time.Second), Trials: 2})
	}
	spec := json.RawMessage(`{"name":"chat","cell":"chat"}`)
	arms := map[byte]*result.Result{}
	for _, a := range []byte{'A', 'B'} {
		arms[a] = &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "chat", Cell: "chat", Hash: "h", Spec: spec}, Complete: true,
			Arm: strings.ToLower(string(a)), AB: x}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range order {
		res := arms[order[i]]
		off := math.Exp(0.02 * r.NormFloat64())
		for j := 0; j < 2; j++ {
			res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials), Valid: true, Block: i + 1, Values: map[string]float64{
				"tpot_ms.p50": 20 * off * math.Exp(0.004*r.NormFloat64()), "ttft_ms.p99": 400 * off * math.Exp(0.03*r.NormFloat64()), "success_rate": 1}})
		}
	}
	p := verdict.DefaultPolicy()
	p.Rules = []verdict.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "ttft_ms.p99", Gated: true, Tolerance: 0.06}, {Metric: "success_rate", Gated: true, Tolerance: 0.005}}
	c, err := ab.Compare([]*result.Result{arms['A']}, []*result.Result{arms['B']}, ab.Options{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, _ := json.Marshal(c)
	if err := os.WriteFile(filepath.Join(dir, "comparison.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, c
}

// TestABPlan: perfgate ab plan prints, per gated metric of the unit
// asked for, the power now and the blocks and time ab.DesignOf's noise
// says a change needs, and the experiment's total.
func TestABPlan(t *testing.T) {
	t.Parallel()
	dir, c := abPlanDir(t)
	code, out, errOut := runCLI("ab", "plan", dir, "--change", "8%")
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	most := 0
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated || cell.Absolute {
			continue
		}
		d := ab.DesignOf(c, cell)
		n := d.BlocksFor(0.08, ab.PlanPower)
		if n == 0 {
			t.Fatalf("%s: 8 %% is never found; the test needs a finite plan", cell.Metric)
		}
		most = max(most, n)
		row := fmt.Sprintf("%.0f %% at 16", 100*d.Power(0.08))
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, cell.Label) {
				line = l
			}
		}
		if !strings.Contains(line, row) || !strings.Contains(line, fmt.Sprintf("  %d  ", n)) || !strings.Contains(line, report.Duration(float64(n)*100)) ||
			!strings.Contains(line, "  "+strconv.Itoa(d.BlocksToPass(ab.PlanPass))) {
			t.Errorf("%s: line %q, want power %q, %d blocks, %s", cell.Label, line, row, n, report.Duration(float64(n)*100))
		}
	}
	if strings.Contains(out, "success_rate") {
		t.Errorf("a percent change planned for a metric in points:\n%s", out)
	}
	for _, want := range []string{"16 blocks (ABBABAABABBABAAB), " + report.Duration(100) + " per block measured (start-up included)", fmt.Sprintf("at %d blocks (about %s): perfgate ab --blocks %d.", most, report.Duration(float64(most)*100), most)} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// 5 % is within TTFT p99's 6 %: never a regression, and said so.
	if code, out, _ = runCLI("ab", "plan", dir, "--change", "5%"); code != ExitPass || !strings.Contains(out, "within the tolerance") ||
		!strings.Contains(out, "1 metric(s) have a tolerance of 5% or more") || !strings.Contains(out, "Every gated metric with a smaller tolerance finds 5%") {
		t.Errorf("--change 5%%: exit %d\n%s", code, out)
	}
	if code, out, _ = runCLI("ab", "plan", dir, "--change", "0.5pp"); code != ExitPass || !strings.Contains(out, "success_rate") || strings.Contains(out, "TPOT") {
		t.Errorf("--change 0.5pp: exit %d\n%s", code, out)
	}
}

// TestABPlanErrors: bad input names the flag or the file.
func TestABPlanErrors(t *testing.T) {
	t.Parallel()
	dir, c := abPlanDir(t)
	plain := t.TempDir()
	c.AB = nil
	data, _ := json.Marshal(c)
	if err := os.WriteFile(filepath.Join(plain, "comparison.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ab", "plan", dir}, "--change is required"},
		{[]string{"ab", "plan", dir, "--change", "5"}, `--change "5": want a percent`},
		{[]string{"ab", "plan", dir, "--change", "-5%"}, `--change "-5%"`},
		{[]string{"ab", "plan", filepath.Join(dir, "missing"), "--change", "5%"}, "no comparison (is "},
		{[]string{"ab", "plan", plain, "--change", "5%"}, "not the comparison of an A/B experiment"},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != ExitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	for _, tc := range []struct {
		in  string
		v   float64
		abs bool
	}{{"5%", 0.05, false}, {" 2.5 %", 0.025, false}, {"0.5pp", 0.005, true}} {
		v, abs, err := parseChange(tc.in)
		if err != nil || math.Abs(v-tc.v) > 1e-12 || abs != tc.abs {
			t.Errorf("parseChange(%q) = %v, %v, %v", tc.in, v, abs, err)
		}
	}
}

func FuzzParseChange(f *testing.F) {
	for _, s := range []string{"5%", "0.5pp", "x", "1e309%", "NaN%", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, _, err := parseChange(s)
		if err == nil && !(v > 0 && v <= 10) {
			t.Errorf("parseChange(%q) = %v", s, v)
		}
	})
}
