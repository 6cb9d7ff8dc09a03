package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

func i64(v int64) *int64 { return &v }

// healthOf is a summarized health record as gate/health writes it.
func healthOf(gpu string, clockPct, temp, power float64, throttled []string, others int, load, steal, avail float64) *result.Health {
	return &result.Health{
		GPU: gpu, CPUs: 8,
		Samples: []result.HealthSample{{Load1: load, MemAvailableMiB: avail, MemTotalMiB: 65536,
			GPUs: []result.GPUSample{{Index: 0, SMClockMHz: 1980 * clockPct / 100, MaxSMClockMHz: 1980, TempC: temp, PowerW: power, Reasons: throttled, ECCUncorrected: i64(0)}}}},
		Summary: result.HealthSummary{MinSMClockPct: clockPct, MaxTempC: temp, MaxPowerW: power, Throttled: throttled, Reasons: throttled,
			OtherProcesses: others, MaxLoad1: load, StealPct: steal, MinMemAvailableMiB: avail, MemTotalMiB: 65536},
	}
}

// TestHealthBesideServerMetrics: the regressed workload's server context
// carries the runner's health of both arms in one collapsed section whose
// summary says what went wrong where; the comment stays within the
// visible-lines budget, and strings from the result file are escaped.
func TestHealthBesideServerMetrics(t *testing.T) {
	d := loadFixture(t, "regression")
	cell := "cx8-4000-1000-c16"
	for i := range d.Baselines[cell].Trials {
		tr := &d.Baselines[cell].Trials[i]
		tr.Server = map[string]float64{"kv_cache_usage_perc.max": 0.41}
		tr.Health = healthOf("nvidia-smi", 99, 61, 512, nil, 0, 2.5, 0.2, 40960)
	}
	for i := range d.Candidates[cell].Trials {
		tr := &d.Candidates[cell].Trials[i]
		tr.Server = map[string]float64{"kv_cache_usage_perc.max": 0.98}
		tr.Health = healthOf("nvidia-smi <img src=x>", 72, 84, 698, nil, 0, 12.5, 7.5, 40960)
		if i%2 == 0 {
			tr.Health = healthOf("nvidia-smi", 50, 88, 699, []string{"hw_slowdown"}, 1, 3, 0.1, 40960)
		}
	}
	var b bytes.Buffer
	if err := Markdown(&b, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	golden(t, "health.md", b.Bytes())
	for _, want := range []string{
		"<details><summary>Runner health, baseline → candidate: clean → GPU throttled in ",
		"| real throttling | – | hw\\_slowdown in ",
		"| load average max / CPUs | 2.5 / 8 |",
		"nvidia-smi &lt;img src=x&gt;",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "<img") {
		t.Error("a GPU string from the result file reached the markdown unescaped")
	}
	if n := visibleLines(md); n > VisibleLines {
		t.Errorf("%d visible lines, budget %d", n, VisibleLines)
	}
	// The terminal report has the summary line, for this workload only.
	var txt bytes.Buffer
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "health.txt", txt.Bytes())
	if want := "  " + cell + ": clean -> GPU throttled in 3 of 6 trials"; !strings.Contains(txt.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, txt.String())
	}
	if got := strings.Count(txt.String(), "trials, GPU shared"); got != 1 {
		t.Errorf("%d runner-health lines, want 1 (only the workload with findings)", got)
	}
	// The section is collapsed: one visible line whatever the table holds.
	if got := visibleLines(healthContext(d, cell)); got != 1 {
		t.Errorf("health context shows %d lines, want 1 (collapsed)", got)
	}
}

// Without health records nothing is added.
func TestHealthContextEmpty(t *testing.T) {
	d := loadFixture(t, "regression")
	if got := healthContext(d, "cx8-4000-1000-c16"); got != "" {
		t.Errorf("healthContext = %q, want empty", got)
	}
}

func TestHealthVerdict(t *testing.T) {
	clean := healthOf("nvidia-smi", 99, 60, 500, nil, 0, 1, 0, 40000)
	busy := healthOf("nvidia-smi", 99, 60, 500, nil, 0, 20, 0, 40000)
	hot := healthOf("nvidia-smi", 60, 90, 500, []string{"hw_thermal_slowdown"}, 0, 1, 0, 40000)
	faulty := healthOf("nvidia-smi", 99, 60, 500, nil, 0, 1, 0, 40000)
	faulty.Xid = []string{"NVRM: Xid 79"}
	tests := []struct {
		hs   []*result.Health
		n    int
		want string
	}{
		{nil, 3, "not sampled"},
		{[]*result.Health{clean, clean}, 2, "clean"},
		{[]*result.Health{clean, busy, hot}, 3, "GPU throttled in 1 of 3 trials, host busy in 1 of 3 trials"},
		{[]*result.Health{faulty}, 1, "GPU faults in 1 of 1 trials"},
	}
	for _, tt := range tests {
		if got := healthVerdict(tt.hs, tt.n); got != tt.want {
			t.Errorf("healthVerdict = %q, want %q", got, tt.want)
		}
	}
}
