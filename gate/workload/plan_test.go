package workload

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestWritePlanGolden pins the text plan of the smoke workloads.
func TestWritePlanGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePlan(&buf, loadSmoke(t)); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/plan-smoke.golden"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("plan differs from %s (go test -update rewrites it):\n%s", golden, buf.String())
	}
}

func TestSummarize(t *testing.T) {
	m := &Manifest{Cell: "c", Requests: []Request{
		{InputTokens: 10, MaxTokens: 4, Arrival: 1},
		{InputTokens: 30, MaxTokens: 2, Arrival: 5},
	}}
	s := Summarize(m)
	if s.Input != (Stats{Min: 10, Mean: 20, Max: 30}) || s.Output != (Stats{Min: 2, Mean: 3, Max: 4}) ||
		s.FirstArrival != 1 || s.LastArrival != 5 || s.Requests != 2 {
		t.Errorf("summary = %+v", s)
	}
}
