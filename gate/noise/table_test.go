package noise

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestWriteTextGolden renders a table with each kind of row: reached, a
// tolerance needing more trials or sessions, one below the session floor,
// a truncated between-session estimate, one needing more trials than the
// search goes to, and an absolute metric.
func TestWriteTextGolden(t *testing.T) {
	tb := &Table{Restarts: 5, TrialsPerRestart: 3, Alpha: 0.01, Looks: 3, Family: 5, CellAlpha: 0.01 / 3 / 5,
		Notes: []string{`chat-c4: ttft_ms.max: 1 session(s) with values: the between-session variance needs at least 2`}}
	d := design(5)
	d.LookAlpha, d.Family = 0.01/3, 5
	add := func(cell, metric, label string, abs bool, within, between, bdf float64, trunc bool, tol float64) {
		e := Estimate{Sessions: 5, Trials: 15, WithinVar: within, WithinDF: 10, BetweenVar: between, BetweenDF: bdf, Truncated: trunc}
		tb.Add(cell, metric, label, abs, e, d, tol)
	}
	add("chat-c4", "tpot_ms.p50", "TPOT p50", false, 0.003*0.003, 0.001*0.001, 4, false, 0.03)
	add("chat-c4", "ttft_ms.p50", "TTFT p50", false, 0.02*0.02, 0.004*0.004, 4, false, 0.03)
	add("burst-c64", "tpot_ms.p50", "TPOT p50", false, 0.01*0.01, 0.03*0.03, 4, false, 0.03)
	add("burst-c64", "tpot_ms.p99", "TPOT p99", false, 0.36*0.36, 0, 4, true, 0.06)
	add("burst-c64", "success_rate", "success_rate", true, 0.0005*0.0005, 0, 4, true, 0.005)
	var buf bytes.Buffer
	if err := WriteText(&buf, tb); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("table differs from %s (run with -update):\n%s", golden, buf.String())
	}
	if !tb.Rows[0].Reached || tb.Rows[2].Reached || !tb.Rows[2].Prediction.BelowFloor || tb.Rows[3].Prediction.BelowFloor || tb.Rows[3].Prediction.Trials != 0 {
		t.Errorf("rows: %+v", tb.Rows)
	}
}
