package report

import (
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// twelveNames are the workloads of the many-workload regression, the size
// of a sweep that issue 10 measured at 7,200 px with every table open.
var twelveNames = []string{
	"chat-1k-c16", "chat-1k-c64", "chat-4k-c16", "chat-4k-c64",
	"rag-8k-c8", "rag-32k-c4", "code-2k-c32", "code-8k-c16",
	"summ-16k-c8", "summ-16k-c32", "batch-512-c128", "long-out-c8",
}

// change is a planted change of one metric of one workload: the natural
// change in percent (pp for success_rate) and the outcome.
type change struct {
	pct     float64
	outcome verdict.Outcome
}

// twelveWorkloads is a 12-workload regression: five workloads regressed
// (two TPOT metrics in one, a throughput drop of 11.8 % in another, a
// success-rate fall in points), two undecided, five passing; every
// workload has a baseline with provenance, a candidate run three days
// later and eight promoted runs of history. With allRegressed every
// workload has a regressed TPOT p50 instead.
func twelveWorkloads(allRegressed bool) *Data {
	planted := map[string]map[string]change{
		"chat-1k-c16":  {"tpot_ms.p50": {8.3, verdict.Regression}, "tpot_ms.p99": {7.1, verdict.Regression}},
		"chat-4k-c16":  {"output_throughput": {-11.8, verdict.Regression}},
		"rag-8k-c8":    {"ttft_ms.p99": {9.4, verdict.Regression}},
		"code-2k-c32":  {"request_throughput": {-5.2, verdict.Regression}},
		"summ-16k-c8":  {"success_rate": {-2.0, verdict.Regression}},
		"rag-32k-c4":   {"e2el_ms.p50": {2.6, verdict.Inconclusive}},
		"long-out-c8":  {"output_throughput": {-2.7, verdict.Inconclusive}},
		"chat-4k-c64":  {"ttft_ms.p50": {-4.1, verdict.Improvement}},
		"code-8k-c16":  {},
		"chat-1k-c64":  {},
		"summ-16k-c32": {},
	}
	if allRegressed {
		planted = map[string]map[string]change{}
		for i, n := range twelveNames {
			planted[n] = map[string]change{"tpot_ms.p50": {4 + float64(i)/2, verdict.Regression}}
		}
	}
	base := map[string]float64{"ttft_ms.p50": 180, "ttft_ms.p99": 410, "tpot_ms.p50": 21.5, "tpot_ms.p99": 28,
		"e2el_ms.p50": 6400, "e2el_ms.p99": 7900, "output_throughput": 2450, "request_throughput": 2.45, "success_rate": 1}
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	c := &verdict.Comparison{Schema: verdict.SchemaID, Alpha: 0.01, LookAlpha: 0.01, Look: verdict.Look{Index: 1, Max: 1}}
	d := &Data{Comparison: c, Profile: "h100-qwen3-8b", FullReport: "perfgate-out/report.md",
		Candidates: map[string]*result.Result{}, Baselines: map[string]*result.Result{}, History: map[string][]Run{}}
	for wi, name := range twelveNames {
		c.Workloads = append(c.Workloads, verdict.Workload{Cell: name, Status: verdict.Compared, BaselineTrials: 5, CandidateTrials: 5})
		d.Baselines[name] = &result.Result{Workload: result.Workload{Cell: name}, StartedAt: start,
			Provenance: &result.Provenance{GitSHA: fmt.Sprintf("%07x0beef", 0x1a2b3c0+wi), PromotedAt: start.Add(time.Hour)}}
		d.Candidates[name] = &result.Result{Workload: result.Workload{Cell: name}, StartedAt: start.Add(72 * time.Hour)}
		for _, id := range verdict.DefaultGated {
			m := metrics.MustLookup(id)
			abs := verdict.Absolute(id)
			ch := change{pct: 0.3 * math.Sin(float64(wi*9+len(id))), outcome: verdict.Pass}
			if p, ok := planted[name][id]; ok {
				ch = p
			}
			cell := verdict.Cell{Workload: name, Metric: id, Label: metrics.Label(id), Unit: m.Unit, Direction: m.Direction.String(),
				Gated: true, Absolute: abs, Change: ch.pct, CILevel: 0.9, Tolerance: 100 * verdict.DefaultTolerance(id),
				PAdjusted: 1, MDE: 2.5, Outcome: ch.outcome, Noise: verdict.CellNoise{Source: "pooled", DF: 80}}
			bv := base[id]
			cv := bv * (1 + ch.pct/100)
			cell.Worse = ch.pct
			if abs {
				cv = bv + ch.pct/100
			}
			if m.Direction == metrics.HigherIsBetter {
				cell.Worse = -ch.pct
				if !abs {
					cell.Worse = 100 * (bv/cv - 1)
				}
			}
			cell.CILow, cell.CIHigh = cell.Worse-1.9, cell.Worse+1.9
			if ch.outcome == verdict.Regression {
				cell.PAdjusted = 0.0004
			}
			cell.Baseline = verdict.Arm{N: 5, Centre: bv, CV: 0.02}
			cell.Candidate = verdict.Arm{N: 5, Centre: cv, CV: 0.02}
			c.Cells = append(c.Cells, cell)
			c.Family++
			switch ch.outcome {
			case verdict.Regression:
				c.Regressions++
			case verdict.Inconclusive:
				c.Inconclusives++
			case verdict.Improvement:
				c.Improvements++
			default:
				c.Passes++
			}
		}
		for r := 0; r < 8; r++ {
			centre := map[string]float64{}
			for id, v := range base {
				centre[id] = v * (1 + 0.01*math.Sin(float64(r*3+wi+len(id))))
				if id == "success_rate" {
					centre[id] = 1 - 0.002*float64(r%3)
				}
			}
			d.History[name] = append(d.History[name], Run{Commit: fmt.Sprintf("c0ffee%d%d", wi, r), PromotedAt: start.Add(time.Duration(r-7) * 24 * time.Hour), Centre: centre})
		}
	}
	c.Verdict = verdict.Regression
	for i := range c.Cells {
		if c.Cells[i].Outcome == verdict.Regression {
			h := c.Cells[i]
			c.Headline = &h
			break
		}
	}
	return d
}
