package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// capacityResult is a capacity cell's result whose searches found the
// given capacities, each over the same synthetic curve scaled to it: the
// share is 1 up to the capacity and falls by 30 points per 10 % beyond.
func capacityResult(t *testing.T, caps ...float64) *result.Result {
	t.Helper()
	spec, err := json.Marshal(result.Spec{Kind: result.KindCapacity, Name: "cap", Cell: "cap", API: "completions",
		Dataset:  result.Dataset{Kind: "random", InputTokens: 512, OutputTokens: 256},
		Load:     result.Load{Requests: 100, Burstiness: 1},
		SLO:      result.SLO{TTFTms: 3000, E2ELms: 30000},
		Capacity: &result.CapacitySpec{GoodputShare: 0.95, Over: result.OverRate, MaxProbes: 10, Resolution: 0.02},
		Gate:     []result.GateRule{{Metric: "capacity_rps"}, {Metric: "saturation_throughput"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "cap", Cell: "cap", Hash: "h", Spec: spec}, Complete: true,
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for i, c := range caps {
		sat := c * 1.25
		probe := func(load, share float64, pass bool) result.Probe {
			good := int(share * 100)
			lo, hi := share-0.05, share+0.02
			return result.Probe{Load: load, Good: good, Total: 100, Share: share, ShareLow: lo, ShareHigh: hi, Pass: pass, Throughput: load,
				Latency: map[string]float64{"ttft_ms.p99": 400 + 2600*load/c, "e2el_ms.p99": 9000 + 20000*load/c}}
		}
		unl := probe(0, 0.12, false)
		unl.Unlimited, unl.Throughput, unl.Latency["ttft_ms.p99"] = true, sat, 9500
		s := &result.Capacity{Over: result.OverRate, Target: 0.95, Capacity: c, Low: c * 0.99, High: c * 1.02, Saturation: sat, Converged: true,
			Probes: []result.Probe{unl, probe(sat, 0.4, false), probe(sat/2, 1, true), probe(c*1.02, 0.9, false), probe(c*0.99, 1, true)}}
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Capacity: s,
			Values: map[string]float64{"capacity_rps": c, "saturation_throughput": sat, "capacity_probes": 5}})
	}
	return r
}

func twoStepResult(sat, rate float64) *result.Result {
	spec, _ := json.Marshal(result.Spec{Kind: result.KindServing, Name: "two", Cell: "two", API: "completions",
		Dataset: result.Dataset{Kind: "random", InputTokens: 512, OutputTokens: 256},
		Load:    result.Load{Requests: 100, Burstiness: 1, SaturationShare: 0.8}})
	r := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "two", Cell: "two", Hash: "h2", Spec: spec}, Complete: true,
		Saturation: &result.Saturation{Share: 0.8, ThroughputRPS: sat, RateRPS: rate, Requests: 100, DurationS: 30}}
	for i, v := range []float64{101, 99, 100} {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: map[string]float64{"ttft_ms.p50": v, "request_throughput": rate}})
	}
	return r
}

// atRateResult is the share cell's comparison at the baseline's rate:
// one arm's trials at 3.44 req/s, with the given TTFT p50s.
func atRateResult(thr float64, ttft ...float64) *result.Result {
	r := twoStepResult(4.3, 3.44)
	r.Workload.Cell, r.Workload.Hash, r.Saturation = result.BaselineRateCell("two"), "h2-at-3.44", nil
	r.BaselineRate = &result.BaselineRate{Cell: "two", ShareHash: "h2", Share: 0.8, RateRPS: 3.44}
	for i, v := range ttft {
		r.Trials[i].Values = map[string]float64{"ttft_ms.p50": v, "request_throughput": thr}
	}
	return r
}

func capacityData(t *testing.T) *Data {
	base := []*result.Result{capacityResult(t, 3.4, 3.5, 3.45), twoStepResult(4.3, 3.44), atRateResult(3.44, 101, 99, 100)}
	cand := []*result.Result{capacityResult(t, 2.4, 2.5, 2.45), twoStepResult(3.1, 2.48), atRateResult(3.1, 180, 176, 185)}
	cmp, err := verdict.Compare(base, cand, verdict.DefaultPolicy(), verdict.Look{Index: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &Data{Comparison: cmp, Profile: "cap", Baselines: map[string]*result.Result{}, Candidates: map[string]*result.Result{}}
	for _, r := range base {
		d.Baselines[r.Workload.Cell] = r
	}
	for _, r := range cand {
		d.Candidates[r.Workload.Cell] = r
	}
	return d
}

// TestCapacityCurveGolden renders the capacity section of both reports:
// a capacity cell whose candidate lost a third of its capacity, and a
// share-of-saturation cell run at each arm's own 80 %.
func TestCapacityCurveGolden(t *testing.T) {
	d := capacityData(t)
	if d.Comparison.Verdict != verdict.Regression {
		t.Fatalf("verdict %s, want the capacity drop to regress", d.Comparison.Verdict)
	}
	md := capacityPart(d)
	golden(t, "capacity.md", []byte(md))
	var txt bytes.Buffer
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "capacity.txt", txt.Bytes())
	// The capacity row sits between the probes around it, for each arm.
	for _, want := range []string{"| baseline | **3.450 req/s** |", "| candidate | **2.450 req/s** |", "The baseline's rate is 111.0 % of the candidate's saturation.",
		"two compares each arm at its own share of its own saturation (did the knee move); two&#64;baseline-rate ran the candidate at the baseline's 3.440 req/s too"} {
		if !strings.Contains(md, want) {
			t.Errorf("capacity section lacks %q", want)
		}
	}
	var full bytes.Buffer
	if err := Markdown(&full, d, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), "Capacity and saturation") {
		t.Error("the markdown report has no capacity section")
	}
}
