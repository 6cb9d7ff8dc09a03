package report

import (
	"math"
	"strings"
	"testing"
)

func TestChart(t *testing.T) {
	got := Chart("Change per gated metric", []Bar{
		{Label: "cx8: TPOT p50", Change: 7.9, Tolerance: 3},
		{Label: "cx8: TTFT p99", Change: -2.1, Tolerance: 6},
	})
	want := "```mermaid\nxychart-beta\n" +
		"    title \"Change per gated metric\"\n" +
		"    x-axis [\"cx8: TPOT p50\", \"cx8: TTFT p99\"]\n" +
		"    y-axis \"worse by (% or pp)\" -5 --> 10\n" +
		"    bar [7.9, -2.1]\n" +
		"    line [3, 6]\n" +
		"```\n"
	if got != want {
		t.Errorf("Chart =\n%s\nwant\n%s", got, want)
	}
	if Chart("x", nil) != "" {
		t.Error("Chart of no bars should be empty")
	}
}

func TestChartHostileLabels(t *testing.T) {
	var bars []Bar
	for i := 0; i < MaxBars+5; i++ {
		bars = append(bars, Bar{Label: "a\"]\n```\n<b>", Change: 1})
	}
	got := Chart("t\"itle", bars)
	if n := strings.Count(got, "```"); n != 2 {
		t.Errorf("chart has %d fences, want 2:\n%s", n, got)
	}
	if strings.Count(got, "\n") != 8 {
		t.Errorf("label broke a line:\n%s", got)
	}
	if strings.ContainsAny(strings.ReplaceAll(got, "\"", ""), "<>[") && strings.Contains(got, "<b>") {
		t.Errorf("html survived:\n%s", got)
	}
	if n := strings.Count(got, "a___"); n != MaxBars {
		t.Errorf("%d labels, want %d (MaxBars)", n, MaxBars)
	}
}

// TestChartHugeChange: a change near the float64 limit (absurd but finite
// data) draws a capped bar, not "+Inf" or a 309-digit number.
func TestChartHugeChange(t *testing.T) {
	out := Chart("w", []Bar{{Label: "TTFT p99", Change: math.MaxFloat64, Tolerance: 6}, {Label: "TPOT p50", Change: -math.MaxFloat64, Tolerance: 3}})
	if strings.Contains(out, "Inf") || strings.Contains(out, "e+") || len(out) > 400 {
		t.Fatalf("chart:\n%s", out)
	}
	if !strings.Contains(out, "bar [1000000, -1000000]") {
		t.Errorf("bars not capped:\n%s", out)
	}
}
