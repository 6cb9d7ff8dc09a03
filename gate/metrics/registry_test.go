package metrics

import "testing"

func TestLookup(t *testing.T) {
	cases := []struct {
		id   string
		ok   bool
		dir  Direction
		unit string
	}{
		{"ttft_ms.p99", true, LowerIsBetter, "ms"},
		{"tpot_ms.median", true, LowerIsBetter, "ms"},
		{"itl_ms.p99.9", true, LowerIsBetter, "ms"},
		{"e2el_ms.p25", true, LowerIsBetter, "ms"}, // any percentile, for imported files
		{"output_throughput", true, HigherIsBetter, "tok/s"},
		{"success_rate", true, HigherIsBetter, "ratio"},
		{"failed", true, LowerIsBetter, "count"},
		{"max_concurrent_requests", true, Informational, "count"},
		{"ttft_ms.p101", false, 0, ""},
		{"ttft_ms.p99.90", false, 0, ""}, // not vLLM's spelling
		{"ttft_ms.avg", false, 0, ""},
		{"nope_ms.p99", false, 0, ""},
		{"", false, 0, ""},
	}
	for _, c := range cases {
		m, ok := Lookup(c.id)
		if ok != c.ok || (ok && (m.Direction != c.dir || m.Unit != c.unit)) {
			t.Errorf("Lookup(%q) = %+v, %v; want ok=%v dir=%v unit=%q", c.id, m, ok, c.ok, c.dir, c.unit)
		}
	}
}

// Every latency is lower-is-better and every throughput higher-is-better:
// a wrong direction silently disables the gate for that metric.
func TestDirectionsOfCatalogue(t *testing.T) {
	for _, id := range All() {
		m := MustLookup(id)
		if m.Unit == "ms" && m.Direction == HigherIsBetter {
			t.Errorf("%s: a latency declared higher-is-better", id)
		}
		if (m.Unit == "tok/s" || m.Unit == "req/s") && m.Direction == LowerIsBetter {
			t.Errorf("%s: a throughput declared lower-is-better", id)
		}
	}
}

func TestPercentileStat(t *testing.T) {
	for p, want := range map[float64]string{50: "p50", 99: "p99", 99.9: "p99.9", 0: "p0"} {
		if got := PercentileStat(p); got != want {
			t.Errorf("PercentileStat(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestLabel(t *testing.T) {
	if got := Label("tpot_ms.p50"); got != "TPOT p50" {
		t.Errorf("Label = %q", got)
	}
	if got := Label("qpm"); got != "qpm" {
		t.Errorf("Label = %q", got)
	}
}
