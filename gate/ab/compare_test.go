package ab

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// pairOf is a small hand-built experiment: order, and per block the values
// of tpot_ms.p50 of its trials.
func pairOf(order string, vals map[int][]float64) (*result.Result, *result.Result) {
	a := &result.Result{Workload: result.Workload{Cell: "c", Hash: "h"}, Complete: true, Arm: "a", AB: &result.AB{Order: order}}
	b := &result.Result{Workload: result.Workload{Cell: "c", Hash: "h"}, Complete: true, Arm: "b", AB: &result.AB{Order: order}}
	for i := 1; i <= len(order); i++ {
		r := a
		if order[i-1] == 'B' {
			r = b
		}
		for _, v := range vals[i] {
			r.Trials = append(r.Trials, result.Trial{Index: len(r.Trials) + 1, Valid: true, Block: i,
				Values: map[string]float64{"tpot_ms.p50": v}})
		}
	}
	return a, b
}

func tpotOnly() verdict.Policy {
	p := verdict.DefaultPolicy()
	p.Rules = []verdict.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}}
	return p
}

// TestCompareDriftCancels: a strong linear drift with no difference between
// the arms; the paired estimate is exactly zero, the drift term is found,
// and the cell passes.
func TestCompareDriftCancels(t *testing.T) {
	order, _ := Order(16, 0)
	vals := map[int][]float64{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 1; i <= 16; i++ {
		lvl := 10 * math.Exp(0.04*float64(i)) // 4 % per block
		vals[i] = []float64{lvl * (1 + 0.002*r.NormFloat64()), lvl * (1 + 0.002*r.NormFloat64())}
	}
	a, b := pairOf(order, vals)
	c, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tpotOnly()})
	if err != nil {
		t.Fatal(err)
	}
	cell := c.Cells[0]
	if c.Verdict != verdict.Pass || math.Abs(cell.Change) > 0.5 {
		t.Fatalf("verdict %s, change %.2f%%: drift of 4%%/block should cancel", c.Verdict, cell.Change)
	}
	if cell.Blocks == nil || len(cell.Blocks.Pairs) != 8 || len(cell.Blocks.Values) != 16 {
		t.Fatalf("blocks %+v", cell.Blocks)
	}
	if math.Abs(cell.Blocks.Drift-4.08) > 0.5 {
		t.Errorf("drift term %.2f%%, want about 4.1%% per pair", cell.Blocks.Drift)
	}
	if c.AB == nil || c.AB.Order != order || c.AB.Pairs != 8 || c.AB.Estimator != string(PairsDrift) {
		t.Errorf("AB %+v", c.AB)
	}
	// The plain mean sees the drift in its spread: a far wider interval.
	cp, _ := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tpotOnly(), Estimator: Pairs})
	if cp.Cells[0].Noise.SE < 5*cell.Noise.SE {
		t.Errorf("plain pairs SE %.4f vs drift-corrected %.4f: the drift should inflate the plain one", cp.Cells[0].Noise.SE, cell.Noise.SE)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatal(err)
	}
}

// TestCompareLostPair: a block whose trials are all invalid loses its pair,
// with a warning, and the rest is still compared.
func TestCompareLostPair(t *testing.T) {
	order, _ := Order(8, 0)
	vals := map[int][]float64{}
	for i := 1; i <= 8; i++ {
		vals[i] = []float64{10, 10.01}
	}
	a, b := pairOf(order, vals)
	for i := range b.Trials {
		if b.Trials[i].Block == 2 {
			b.Trials[i].Valid, b.Trials[i].InvalidReason = false, "server died"
		}
	}
	p := tpotOnly()
	p.MaxInvalidShare = 0.5
	c, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	cell := c.Cells[0]
	if len(cell.Blocks.Lost) != 1 || cell.Blocks.Lost[0] != 1 || len(cell.Blocks.Pairs) != 3 {
		t.Fatalf("lost %v pairs %v", cell.Blocks.Lost, cell.Blocks.Pairs)
	}
	if !strings.Contains(strings.Join(cell.Warnings, "\n"), "pair 1 (blocks 1-2) left out: block 2 (arm B) has no valid trial") {
		t.Errorf("warnings %q", cell.Warnings)
	}
	if len(c.Workloads[0].Excluded) != 2 || c.Workloads[0].Excluded[0].Arm != "candidate" {
		t.Errorf("excluded %+v", c.Workloads[0].Excluded)
	}
}

func TestCompareRefusesWhatIsNotAnExperiment(t *testing.T) {
	order, _ := Order(4, 0)
	vals := map[int][]float64{1: {1}, 2: {1}, 3: {1}, 4: {1}}
	for _, tc := range []struct {
		name string
		edit func(a, b *result.Result)
		err  string
	}{
		{"wrong arm", func(a, b *result.Result) { a.Arm = "b" }, `arm a, workload cell "c": the result is marked arm "b"`},
		{"no design", func(a, b *result.Result) { b.AB = nil }, "no A/B design"},
		{"bad order", func(a, b *result.Result) { a.AB.Order = "AABB" }, "ab.order"},
		{"orders differ", func(a, b *result.Result) { b.AB = &result.AB{Order: "ABBABAAB"} }, "not of one experiment"},
		{"no block", func(a, b *result.Result) { a.Trials[0].Block = 0 }, "trial 1 has block 0, want 1..4"},
		{"wrong block", func(a, b *result.Result) { a.Trials[0].Block = 2 }, "which order \"ABBA\" gives to arm B"},
	} {
		a, b := pairOf(order, vals)
		tc.edit(a, b)
		_, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tpotOnly()})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
	a, b := pairOf(order, vals)
	b.Trials = append(b.Trials, result.Trial{Index: 3, InvalidReason: "server died before the block began"})
	p := tpotOnly()
	p.MaxInvalidShare = 0.5
	if _, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: p}); err != nil {
		t.Errorf("an invalid trial without a block: %v", err)
	}
	if _, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tpotOnly(), Look: verdict.Look{Index: 3, Max: 2}}); err == nil {
		t.Error("look 3 of 2 accepted")
	}
	if _, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tpotOnly(), Estimator: "median"}); err == nil {
		t.Error("unknown estimator accepted")
	}
}

// TestCompareFingerprint: the arms may differ in their command line and
// environment (that is the experiment) even when the policy makes those
// keys hard; another GPU is a mismatch as in verdict.
func TestCompareFingerprint(t *testing.T) {
	order, _ := Order(8, 0)
	vals := map[int][]float64{}
	for i := 1; i <= 8; i++ {
		vals[i] = []float64{10, 10.01}
	}
	p := tpotOnly()
	p.HardKeys = append(p.HardKeys, result.KeyServerArgv, "env.NCCL_P2P_DISABLE")
	a, b := pairOf(order, vals)
	a.Fingerprint = map[string]string{"gpu.name": "H100", "env.NCCL_P2P_DISABLE": "1", "server.argv": `["vllm"]`}
	b.Fingerprint = map[string]string{"gpu.name": "H100", "env.NCCL_P2P_DISABLE": "0", "server.argv": `["vllm","-x"]`}
	c, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Workloads[0]; w.Status != verdict.Compared || len(w.Fingerprint) != 2 || w.Fingerprint[0].Hard {
		t.Fatalf("workload %+v", w)
	}
	b.Fingerprint["gpu.name"] = "A100"
	c, _ = Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: p})
	if w := c.Workloads[0]; w.Status != verdict.FingerprintMismatch || c.Verdict != verdict.Invalid {
		t.Fatalf("another GPU: workload %+v, verdict %s", w, c.Verdict)
	}
}

// TestCompareFamilyAcrossWorkloads: the Holm family spans every gated
// (workload, metric) cell of the experiment, and a workload only one arm
// ran is reported as missing, making the verdict invalid unless allowed.
func TestCompareFamilyAcrossWorkloads(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	e := newExperiment(restarting, r, arm{1, 1}, arm{1, 1}, false, 2, 0)
	order, _ := Order(16, 0)
	e.run(order)
	a2, b2 := *e.ra, *e.rb
	a2.Workload.Cell, b2.Workload.Cell = "other", "other"
	c, err := Compare([]*result.Result{e.ra, &a2}, []*result.Result{e.rb, &b2}, Options{Policy: verdict.DefaultPolicy()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Family != 18 {
		t.Errorf("family %d, want 9 gated metrics x 2 workloads", c.Family)
	}
	c, _ = Compare([]*result.Result{e.ra, &a2}, []*result.Result{e.rb}, Options{Policy: verdict.DefaultPolicy()})
	if c.Verdict != verdict.Invalid || c.Workloads[1].Status != verdict.MissingCandidate || c.Family != 9 {
		t.Errorf("arm B without a workload: verdict %s, %+v, family %d", c.Verdict, c.Workloads[1], c.Family)
	}
	c, _ = Compare([]*result.Result{&a2}, []*result.Result{e.rb}, Options{Policy: verdict.DefaultPolicy()})
	if c.Verdict != verdict.Invalid || c.AB == nil || c.AB.Order != order {
		t.Errorf("no workload in both arms: verdict %s, AB %+v; want invalid and still marked paired", c.Verdict, c.AB)
	}
	p := verdict.DefaultPolicy()
	p.AllowMissing = true
	if c, _ = Compare([]*result.Result{e.ra, &a2}, []*result.Result{e.rb}, Options{Policy: p}); c.Verdict == verdict.Invalid {
		t.Errorf("allow_missing: verdict %s", c.Verdict)
	}
}

// TestComparisonJSON: the paired fields are present in a paired
// comparison and absent from an ordinary one, so schema v2 readers see
// nothing new.
func TestComparisonJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	e := newExperiment(restarting, r, arm{1, 1}, arm{1, 1}, false, 2, 0)
	order, _ := Order(8, 0)
	e.run(order)
	c, err := Compare([]*result.Result{e.ra}, []*result.Result{e.rb}, Options{Policy: verdict.DefaultPolicy()})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(c)
	for _, want := range []string{`"ab":{"order":"ABBABAAB"`, `"blocks":{"values":[{"block":1,"arm":"a","trials":2,`, `"estimator":"pairs-drift"`, `"startup_s":480`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("paired comparison JSON lacks %s", want)
		}
	}
	plain, err := verdict.Compare([]*result.Result{e.ra}, []*result.Result{e.rb}, verdict.DefaultPolicy(), verdict.Look{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ = json.Marshal(plain)
	if strings.Contains(string(js), `"ab":`) || strings.Contains(string(js), `"blocks":`) {
		t.Errorf("an ordinary comparison carries paired fields: %.300s", js)
	}
}

// TestCompareCommandCell: an offline benchmark cell (kind: command) is
// gated on its own gate list and on policy rules for metrics its files
// carry, with no warnings about the serving metrics it cannot have.
func TestCompareCommandCell(t *testing.T) {
	order, _ := Order(8, 0)
	spec := json.RawMessage(`{"kind":"command","name":"lat","cell":"lat","gate":[{"metric":"offline_latency_ms.p50","tolerance":0.03}],"command":{"argv":["vllm","bench","latency"]}}`)
	a := &result.Result{Workload: result.Workload{Cell: "lat", Hash: "h", Spec: spec}, Complete: true, Arm: "a", AB: &result.AB{Order: order}}
	b := &result.Result{Workload: result.Workload{Cell: "lat", Hash: "h", Spec: spec}, Complete: true, Arm: "b", AB: &result.AB{Order: order}}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 1; i <= 8; i++ {
		res, f := a, 1.0
		if order[i-1] == 'B' {
			res, f = b, 1.10
		}
		for j := 0; j < 2; j++ {
			res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials) + 1, Valid: true, Block: i,
				Values: map[string]float64{"offline_latency_ms.p50": 1200 * f * (1 + 0.003*r.NormFloat64())}})
		}
	}
	c, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: verdict.DefaultPolicy()})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Workloads[0].Warnings) != 0 {
		t.Errorf("warnings %q", c.Workloads[0].Warnings)
	}
	if c.Verdict != verdict.Regression || c.Family != 1 || c.Cells[0].Metric != "offline_latency_ms.p50" {
		t.Errorf("verdict %s, family %d, cells %+v", c.Verdict, c.Family, c.Cells)
	}
}
