package history

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
)

func TestCurrentSegmentStartsAfterTheNewestStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	lines := nightly(rng, 20, 5, 0.01, 0.01, func(i int) float64 {
		if i >= 12 {
			return math.Log1p(0.10)
		}
		return 0
	})
	c := FromLines("chat", lines)
	seg, ok := c.CurrentSegment([]string{"tpot_ms.p50", "output_throughput"}, 19, DefaultDetector())
	if !ok || seg.From != 12 || seg.To != 19 || seg.After == nil || seg.After.Commit != lines[12].GitSHA {
		t.Fatalf("segment %+v", seg)
	}
	if st := seg.After; st.Change < 7 || st.Change > 13 || st.Low > st.Change || st.High < st.Change {
		t.Errorf("step %+v: want about +10 %% inside its interval", st)
	}
	// Judged at session 10 (a merge base before the step), the segment
	// is the one before it.
	if seg, _ := c.CurrentSegment([]string{"tpot_ms.p50"}, 10, DefaultDetector()); seg.From != 0 || seg.To != 10 {
		t.Errorf("segment at 10: %+v", seg)
	}
	// No step in A/A: the whole history, capped at MaxSegment.
	long := FromLines("chat", nightly(rng, MaxSegment+5, 3, 0.01, 0.01, flat))
	if seg, _ := long.CurrentSegment([]string{"tpot_ms.p50"}, MaxSegment+4, DefaultDetector()); seg.Len() != MaxSegment || seg.After != nil {
		t.Errorf("A/A segment %+v", seg)
	}
}

func TestResultsUseTheBaselineFileForItsSession(t *testing.T) {
	lines := nightly(rand.New(rand.NewPCG(5, 5)), 4, 3, 0.01, 0.01, flat)
	lines[0].WorkloadHash = "old" // another workload: dropped
	lines[0].Fingerprint = nil
	base := baseFor(lines[3])
	c := FromLines("chat", lines)
	if c.Dropped != 1 || len(c.Sessions) != 3 {
		t.Fatalf("cell %+v", c)
	}
	rs := c.Results(base, 0, 2)
	if len(rs) != 3 || rs[2] != base {
		t.Fatalf("results %d, last is base: %v", len(rs), rs[len(rs)-1] == base)
	}
	r := rs[0]
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if r.Workload.Hash != base.Workload.Hash || !r.Complete || len(r.ValidTrials()) != 3 || r.Provenance.GitSHA != lines[1].GitSHA || r.Fingerprint["gpu.name"] != "sim" {
		t.Errorf("result %+v", r)
	}
}

func TestFindMatchesShaPrefixes(t *testing.T) {
	lines := nightly(rand.New(rand.NewPCG(5, 5)), 3, 3, 0.01, 0.01, flat)
	c := FromLines("chat", lines)
	for _, tc := range []struct {
		sha  string
		want int
	}{{lines[1].GitSHA, 1}, {lines[1].GitSHA[:7], 1}, {lines[2].GitSHA[:6], -1}, {"fffffff", -1}} {
		if got := c.Find(tc.sha); got != tc.want {
			t.Errorf("Find(%q) = %d, want %d", tc.sha, got, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	c := FromLines("chat", []baseline.HistoryLine{{WorkloadHash: "h", PromotedAt: day0, GitSHA: "abcdef123"}, {WorkloadHash: "h", PromotedAt: day0.AddDate(0, 0, 2), GitSHA: "0123456789"}})
	if got := c.Describe(0, 1); got != "2 runs promoted 2026-10-01..2026-10-03 (abcdef1..0123456)" {
		t.Errorf("Describe = %q", got)
	}
	if got := c.Describe(0, 0); got != "1 run promoted 2026-10-01 (abcdef1)" {
		t.Errorf("Describe = %q", got)
	}
}

func TestSegmentBaselines(t *testing.T) {
	lines := nightly(rand.New(rand.NewPCG(6, 6)), 16, 5, 0.01, 0.01, func(i int) float64 {
		if i >= 6 {
			return math.Log1p(0.10)
		}
		return 0
	})
	base := baseFor(lines[15])
	c := FromLines("chat", lines)
	rs, seg := c.SegmentBaselines(base, []string{"tpot_ms.p50"}, 15, DefaultDetector())
	if seg.From != 6 || len(rs) != 10 || rs[9] != base {
		t.Fatalf("segment %+v, %d results", seg, len(rs))
	}
	if rs, _ := (&Cell{}).SegmentBaselines(base, nil, 0, DefaultDetector()); len(rs) != 1 || rs[0] != base {
		t.Errorf("no history: %d results", len(rs))
	}
}

// A year of nightly runs with a few steps is segmented in well under a
// second per metric: the gate does it for every gated metric of every cell.
func TestCurrentSegmentOfAYearIsCheap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	c := FromLines("chat", nightly(rng, 365, 5, 0.01, 0.02, func(i int) float64 { return float64(i/60) * math.Log1p(0.05) }))
	start := time.Now()
	seg, _ := c.CurrentSegment([]string{"tpot_ms.p50", "output_throughput"}, 364, DefaultDetector())
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("segmenting took %v", d)
	}
	// Steps every 60 nights; the newest (night 360) may be too recent
	// to see, the one before it is not.
	if (seg.From != 300 && seg.From != 360) || seg.To != 364 {
		t.Errorf("segment %+v: want it to start at the step of night 300 or 360", seg)
	}
}

// Two promotions of one result file share a start; the commit and the
// promotion time tell them apart.
func TestSameRun(t *testing.T) {
	lines := nightly(rand.New(rand.NewPCG(5, 5)), 2, 3, 0.01, 0.01, flat)
	lines[1].StartedAt = lines[0].StartedAt
	c := FromLines("chat", lines)
	base := baseFor(lines[1])
	if c.Sessions[0].sameRun(base) || !c.Sessions[1].sameRun(base) {
		t.Error("sessions of one start not told apart by commit")
	}
	base.Provenance = nil
	if !c.Sessions[0].sameRun(base) {
		t.Error("without provenance the start decides")
	}
}

func TestCurrentSegmentStartsAtAnAcceptedChange(t *testing.T) {
	lines := nightly(rand.New(rand.NewPCG(5, 5)), 12, 3, 0.01, 0.01, flat)
	lines[9].Accepted = "accepted"
	seg, _ := FromLines("chat", lines).CurrentSegment([]string{"tpot_ms.p50"}, 11, DefaultDetector())
	if seg.From != 9 || seg.To != 11 {
		t.Errorf("segment %+v, want 9..11", seg)
	}
	if seg, _ := FromLines("chat", lines).CurrentSegment([]string{"tpot_ms.p50"}, 8, DefaultDetector()); seg.From != 0 {
		t.Errorf("segment before the acceptance %+v", seg)
	}
}

func TestShortNote(t *testing.T) {
	step := &Step{Metric: "tpot_ms.p50"}
	for _, tc := range []struct {
		name       string
		seg        Segment
		calibrated int
		want       string
	}{
		{"no step", Segment{From: 0, To: 1}, 0, ""},
		{"long enough", Segment{From: 4, To: 7, After: step}, 0, ""},
		{"short, uncalibrated", Segment{From: 6, To: 7, After: step}, 0, "has only 2 runs: the documented default"},
		{"short against the calibration", Segment{From: 4, To: 7, After: step}, 5, "comes mostly from the calibration (5 sessions)"},
		{"one run", Segment{From: 7, To: 7, After: step}, 3, "has only 1 run:"},
	} {
		got := tc.seg.ShortNote("chat", tc.calibrated)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
