package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// whyExplanation is a hand-written explanation of the regression fixture
// (its numbers are the renderer's input, not computed here): decode
// carries the change in cx8-4000-1000-c16, next to preemptions that rose
// beyond their trial spread; the second workload, whose name is hostile,
// regressed in a tail only.
func whyExplanation() *verdict.Explanation {
	pc := func(p verdict.Phase, b, c, lo, hi, share float64, moved bool) verdict.PhaseChange {
		return verdict.PhaseChange{Phase: p, Baseline: b, Candidate: c, Delta: c - b, DeltaLow: lo, DeltaHigh: hi,
			Change: 100 * (c - b) / b, Share: share, Moved: moved}
	}
	pre := verdict.CounterDelta{Key: "vllm:num_preemptions_total.delta", Series: "vllm:num_preemptions_total",
		Baseline: 0, Candidate: 37, CandMin: 30, CandMax: 41, Flagged: true, FalseFlag: 2.0 / 252}
	kv := verdict.CounterDelta{Key: "kv_cache_usage_perc.max", Series: "vllm:kv_cache_usage_perc",
		Baseline: 0.62, Candidate: 0.99, BaseMin: 0.6, BaseMax: 0.65, CandMin: 0.97, CandMax: 1, Flagged: true, FalseFlag: 2.0 / 252}
	wait := verdict.CounterDelta{Key: "num_requests_waiting.mean", Series: "vllm:num_requests_waiting",
		Baseline: 1.5, Candidate: 1.7, BaseMin: 1, BaseMax: 2, CandMin: 1.2, CandMax: 2.1, FalseFlag: 2.0 / 252}
	return &verdict.Explanation{Schema: verdict.ExplanationSchema, CILevel: 0.8,
		Findings: []verdict.Finding{
			{Phase: verdict.PhaseDecode, Workloads: []string{"cx8-4000-1000-c16"}, Measure: "per-token decode time",
				ChangeLow: 8.1, ChangeHigh: 8.1, ShareLow: 96, ShareHigh: 96, Shared: 1, Unchanged: []verdict.Phase{verdict.PhaseQueue, verdict.PhasePrefill},
				Cells:    []string{"cx8-4000-1000-c16/tpot_ms.p50", "cx8-4000-1000-c16/tpot_ms.p99"},
				Counters: []verdict.CounterDelta{pre, kv}},
			{Phase: verdict.PhaseNone, Workloads: []string{"short|<chat>"}, Cells: []string{"short|<chat>/ttft_ms.p99"}},
		},
		Workloads: []verdict.PhaseSplit{
			{Workload: "cx8-4000-1000-c16", ServerQueue: true, Carrier: verdict.PhaseDecode,
				E2EL: pc("", 9000, 9700, 600, 800, 100, true),
				Phases: []verdict.PhaseChange{pc(verdict.PhaseQueue, 100, 105, -10, 20, 0.7, false),
					pc(verdict.PhasePrefill, 400, 420, -5, 45, 2.9, false), pc(verdict.PhaseDecode, 8500, 9175, 600, 750, 96.4, true)},
				PerToken: pc("", 8.508, 9.184, 0.6, 0.75, 0, true), Tokens: pc("", 1000, 1000, 0, 0, 0, false),
				ClientQueue: pc("", 10, 12, -1, 5, 0, false),
				Cells:       []string{"cx8-4000-1000-c16/tpot_ms.p50", "cx8-4000-1000-c16/tpot_ms.p99"},
				Counters:    []verdict.CounterDelta{wait, pre, kv}},
			{Workload: "short|<chat>", Carrier: verdict.PhaseNone,
				E2EL:     pc("", 50, 50.5, -1, 2, 100, false),
				Phases:   []verdict.PhaseChange{pc(verdict.PhaseQueue, 1, 1, 0, 0, 0, false), pc(verdict.PhasePrefill, 10, 10.2, -1, 1.4, 40, false), pc(verdict.PhaseDecode, 39, 39.3, -1, 1.6, 60, false)},
				PerToken: pc("", 1, 1.01, -0.02, 0.04, 0, false), Tokens: pc("", 40, 40, 0, 0, 0, false), ClientQueue: pc("", 1, 1, 0, 0, 0, false),
				Cells: []string{"short|<chat>/ttft_ms.p99"}},
		},
		Kernels: &verdict.KernelDiff{Workload: "cx8-4000-1000-c16", BaselineTrace: "out/profiles/baseline/a.pt.trace.json",
			CandidateTrace: "out/profiles/candidate/b.pt.trace.json", BaselineSteps: 640, CandidateSteps: 652,
			Ops: []verdict.KernelChange{{Name: "mlp", Baseline: 900, Candidate: 1035, Delta: 135, Change: 15},
				{Name: "attention", Baseline: 300, Candidate: 345, Delta: 45, Change: 15},
				{Name: "fused_moe<|bad|>", Candidate: 2, Delta: 2}}},
		Warnings: []string{"imported: no valid trial with ttft_ms.median in both arms; the split needs the per-request medians a perfgate run records"},
	}
}

// TestFindingsGolden renders the regression fixture with an explanation:
// the findings come right after the headline's summary, before the list
// of regressed metrics, in both forms, and the split is collapsed after
// the tables.
func TestFindingsGolden(t *testing.T) {
	d := loadFixture(t, "regression")
	d.Comparison.Explanation = whyExplanation()
	var md, txt bytes.Buffer
	if err := Markdown(&md, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "why.md", md.Bytes())
	golden(t, "why.txt", txt.Bytes())
	m := md.String()
	why, list, split := strings.Index(m, "**Why it regressed** (2 findings"), strings.Index(m, "regressed metric(s)**"), strings.Index(m, "<summary>Why it regressed: phase split")
	if why < 0 || list < 0 || split < 0 || !(why < list && list < split) {
		t.Errorf("findings at %d, list at %d, split at %d", why, list, split)
	}
	for _, want := range []string{
		"**Decode** carries the change in 1 of 2 regressed workloads (cx8-4000-1000-c16): time per output token +8.1 %, 96 % of the E2EL change; server queue and prefill unchanged. 2 regressed metrics follow: TPOT p50, TPOT p99. Server `/metrics` beyond their trial spread, baseline → candidate: preemptions per trial 0 → 37 · KV cache max 62.0 % → 99.0 %.",
		"**No phase** carries the change in 1 of 2 regressed workloads (short\\|&lt;chat&gt;)",
		"| cx8-4000-1000-c16 | preemptions per trial | `vllm:num_preemptions_total` | 0 | 37 (30 – 41) | ⚑ (0.79 % by chance) |",
		"**Kernels per engine step** in cx8-4000-1000-c16 (one profiled trial per arm, 640 and 652 steps): mlp +15.0 % (900.0 → 1,035 µs) · attention +15.0 % (300.0 → 345.0 µs) · fused\\_moe&lt;\\|bad\\|&gt; new (0 → 2.000 µs). Traces: `out/profiles/baseline/a.pt.trace.json`, `out/profiles/candidate/b.pt.trace.json`.",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(m, "short|<chat>") {
		t.Errorf("an unescaped workload name reached the markdown")
	}
	if n := visibleLines(m); n > VisibleLines {
		t.Errorf("%d visible lines, budget %d", n, VisibleLines)
	}
	tx := txt.String()
	part := tx[strings.Index(tx, "Why it regressed"):]
	part = part[:strings.Index(part, "\n\n")]
	if !strings.HasPrefix(part, "Why it regressed (2 findings; 80 % intervals):\n- Decode carries") || strings.Contains(part, "`") {
		t.Errorf("terminal findings:\n%s", txt.String())
	}
}

// TestNoExplanationNoFindings: a comparison without an explanation (every
// stored fixture, any pass) renders as before.
func TestNoExplanationNoFindings(t *testing.T) {
	d := loadFixture(t, "regression")
	var md, txt bytes.Buffer
	if err := Markdown(&md, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String()+txt.String(), "Why it regressed") {
		t.Errorf("findings without an explanation")
	}
}

func TestFindingWording(t *testing.T) {
	n := arms{base: "Baseline", cand: "Candidate"}
	f := verdict.Finding{Phase: verdict.PhaseLength, Workloads: []string{"a", "b", "c", "d", "e"}, ChangeLow: 20, ChangeHigh: 25, ShareLow: 80, ShareHigh: 99.6, Shared: 5,
		Cells: []string{"a/e2el_ms.p50", "b/e2el_ms.p50"}}
	got := findingSentence(f, 5, n, false)
	want := "Output length carries the change in all 5 regressed workloads (a, b, c, d, and 1 more): output tokens per request (each token as fast as before) +20.0 to +25.0 %, 80 to 100 % of the E2EL change. 2 regressed metrics follow: E2EL p50."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	f = verdict.Finding{Phase: verdict.PhasePrefill, Workloads: []string{"p"}, ChangeLow: 30, ChangeHigh: 30, ShareLow: 90, ShareHigh: 90, Shared: 1, Cells: []string{"p/ttft_ms.p50"}}
	if got := findingSentence(f, 1, n, false); !strings.HasPrefix(got, "Prefill carries the change in the regressed workload (p): prefill time (TTFT minus the server queue) +30.0 %, 90 % of the E2EL change. 1 regressed metric follows") {
		t.Errorf("got %s", got)
	}
}

// TestKernelProfileError: a profile that failed says so in a line and
// leaves the findings alone; without findings (profile: always on a pass)
// the line stands alone.
func TestKernelProfileError(t *testing.T) {
	e := &verdict.Explanation{Kernels: &verdict.KernelDiff{Workload: "w", Error: "trace /tmp/x.json: unexpected EOF"}}
	if got := kernelsLineShown(e, false, nil); got != "Kernel profile of w: none (trace /tmp/x.json: unexpected EOF); the verdict does not depend on it." {
		t.Errorf("got %s", got)
	}
	d := loadFixture(t, "pass")
	d.Comparison.Explanation = e
	var md, txt bytes.Buffer
	if err := Markdown(&md, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "\nKernel profile of w: none") || strings.Contains(md.String(), "Why it regressed") || !strings.Contains(txt.String(), "Kernel profile of w: none") {
		t.Errorf("markdown:\n%s\ntext:\n%s", md.String(), txt.String())
	}
}

// TestFindingShareOnlyWhereE2ELMoved: a share of an E2EL change within
// the noise is not shown; the sentence says where it is over.
func TestFindingShareOnlyWhereE2ELMoved(t *testing.T) {
	n := arms{base: "Baseline", cand: "Candidate"}
	f := verdict.Finding{Phase: verdict.PhaseDecode, Workloads: []string{"a", "b"}, ChangeLow: 12, ChangeHigh: 18, ShareLow: 83, ShareHigh: 97, Shared: 1, Cells: []string{"a/tpot_ms.p50"}}
	if got := findingSentence(f, 2, n, false); !strings.Contains(got, "time per output token +12.0 to +18.0 %, 83 to 97 % of the E2EL change where E2EL moved (1 of 2).") {
		t.Errorf("got %s", got)
	}
	f.Shared = 0
	if got := findingSentence(f, 2, n, false); !strings.Contains(got, "+12.0 to +18.0 %, while E2EL p50 stayed within its interval.") {
		t.Errorf("got %s", got)
	}
}

// TestFindingsShortenTheOpenList: under findings the open list keeps the
// OpenWithFindings most severe regressed rows and collapses the rest, so
// the first screen (verdict, findings, worst rows, what decides the
// undecided) stays within the render check's 900 px; without findings it
// keeps up to MaxBars. The 12-workload fixture has 6 regressed metrics.
func TestFindingsShortenTheOpenList(t *testing.T) {
	for _, tc := range []struct {
		why  bool
		want int
	}{{false, 6}, {true, OpenWithFindings}} {
		d := twelveWorkloads(false)
		if tc.why {
			d.Comparison.Explanation = whyExplanation()
		}
		var md bytes.Buffer
		if err := Markdown(&md, d, CommentLimit); err != nil {
			t.Fatal(err)
		}
		m := md.String()
		start := strings.Index(m, "regressed metric(s)**, most severe first")
		if start < 0 {
			t.Fatalf("findings %v: no regressed list", tc.why)
		}
		rows, table := 0, false
		for _, line := range strings.Split(m[start:], "\n")[1:] {
			if strings.HasPrefix(line, "|") {
				table = true
				rows++
			} else if table {
				break
			}
		}
		if rows -= 2; rows != tc.want { // less the header and separator rows
			t.Errorf("findings %v: %d open regressed rows, want %d", tc.why, rows, tc.want)
		}
	}
}

// TestTerminalKeepsTheOpenRows: the terminal report lists the regressed
// rows the comment keeps open and counts the rest, so `make demo` stays
// within about 40 lines however many metrics a slowdown moves (issue 23).
func TestTerminalKeepsTheOpenRows(t *testing.T) {
	for _, why := range []bool{false, true} {
		d := twelveWorkloads(false)
		if why {
			d.Comparison.Explanation = whyExplanation()
		}
		var txt bytes.Buffer
		if err := Text(&txt, d); err != nil {
			t.Fatal(err)
		}
		rows := strings.Count(txt.String(), "  REGRESSION")
		more := strings.Contains(txt.String(), "… 1 more regressed metric(s) in the full report")
		if want := map[bool]int{false: 6, true: OpenWithFindings}[why]; rows != want || more != why {
			t.Errorf("findings %v: %d regressed rows (want %d), count line %v\n%s", why, rows, want, more, txt.String())
		}
	}
}
