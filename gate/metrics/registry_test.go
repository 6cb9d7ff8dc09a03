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

// TestParseStat pins the one reading of statistic names: the vLLM
// spelling only, so that no statistic has two ids.
func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want Stat
	}{
		{"mean", true, Mean},
		{"median", true, Median},
		{"std", true, Std},
		{"min", true, Min},
		{"max", true, Max},
		{"p50", true, Pct(50)},
		{"p99.9", true, Pct(99.9)},
		{"p0", true, Pct(0)},
		{"p100", true, Pct(100)},
		{"p99.90", false, Stat{}}, // not the shortest form
		{"p050", false, Stat{}},
		{"p101", false, Stat{}},
		{"p-1", false, Stat{}},
		{"pNaN", false, Stat{}},
		{"p", false, Stat{}},
		{"avg", false, Stat{}},
		{"", false, Stat{}},
	} {
		got, ok := ParseStat(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ParseStat(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok && got.String() != c.in {
			t.Errorf("ParseStat(%q).String() = %q", c.in, got.String())
		}
	}
	for p, want := range map[float64]string{50: "p50", 99: "p99", 99.9: "p99.9", 0: "p0"} {
		if got := Pct(p).String(); got != want {
			t.Errorf("Pct(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestParseID(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
		id ID
	}{
		{"ttft_ms.p99.9", true, ID{"ttft_ms", Pct(99.9)}},
		{"tpot_ms.median", true, ID{"tpot_ms", Median}},
		{"output_throughput", false, ID{}},
		{"dispatch_lag_ms.p99", false, ID{}},    // a scalar named like a statistic
		{"offline_latency_ms.p50", false, ID{}}, // an offline id, not a distribution
		{"nope_ms.p99", false, ID{}},
		{"ttft_ms.p99.90", false, ID{}},
	} {
		got, ok := ParseID(c.in)
		if ok != c.ok || got != c.id {
			t.Errorf("ParseID(%q) = %v, %v; want %v, %v", c.in, got, ok, c.id, c.ok)
		}
		if ok && got.String() != c.in {
			t.Errorf("ParseID(%q).String() = %q", c.in, got)
		}
	}
}

func TestTail(t *testing.T) {
	for st, want := range map[Stat]bool{Pct(90): true, Pct(99.9): true, Max: true, Pct(89.9): false, Median: false, Mean: false, Pct(50): false} {
		if st.Tail() != want {
			t.Errorf("%s.Tail() = %v", st, !want)
		}
	}
}

// TestRecorded: what a perfgate run records, which is what a workload may
// gate. Any percentile is a valid id (imports), not a recorded one.
func TestRecorded(t *testing.T) {
	for id, want := range map[string]bool{
		"tpot_ms.p99": true, "tpot_ms.p99.9": true, "ttft_ms.median": true, "e2el_ms.max": true,
		"tpot_ms.p75": false, "ttft_ms.p25": false, "itl_ms.p99.99": false,
		"output_throughput": true, "success_rate": true, "dispatch_lag_ms.p99": true,
		"offline_latency_ms.p75": true, "offline_latency_ms.p99.9": false, "offline_tokens_per_s": true,
		"no_such_metric": false,
	} {
		if got := Recorded(id); got != want {
			t.Errorf("Recorded(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestOfflineInCatalogue: the offline benchmark ids are the catalogue's
// own, known to every package that imports metrics.
func TestOfflineInCatalogue(t *testing.T) {
	for _, id := range []string{"offline_latency_ms.mean", "offline_latency_ms.p10", "offline_latency_ms.p99", OfflineRequestsPerS, OfflineTokens} {
		if _, ok := Lookup(id); !ok {
			t.Errorf("Lookup(%q) failed", id)
		}
	}
	seen := map[string]bool{}
	for _, id := range All() {
		if seen[id] {
			t.Errorf("All lists %s twice", id)
		}
		seen[id] = true
	}
	if !seen["offline_latency_ms.p75"] {
		t.Error("All lacks the offline ids")
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
