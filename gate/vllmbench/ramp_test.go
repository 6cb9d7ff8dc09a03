package vllmbench

import (
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestExportRamp: a ramp-up run exports vLLM's ramp keys, so vLLM's
// readers (and perfgate's importer) see the ramp and not a plain rate inf.
func TestExportRamp(t *testing.T) {
	r := &result.Result{
		Schema: result.Schema,
		Workload: result.Workload{Name: "r", Cell: "r", Hash: "h",
			Spec: []byte(`{"name":"r","api":"completions","load":{"requests":6,"concurrency":0,"rate":"inf","burstiness":1,"ramp_up":{"strategy":"linear","start_rps":1,"end_rps":10}}}`)},
		Server: result.Server{Model: "m"},
		Trials: []result.Trial{{Index: 0, Valid: true, DurationS: 2, Completed: 6, Values: map[string]float64{"request_throughput": 3}}},
	}
	files, _, err := Export(r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("x", files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if b.RampUp == "" || b.NumPrompts != 6 {
		t.Errorf("ramp %q, prompts %d\n%s", b.RampUp, b.NumPrompts, files[0].Data)
	}
}
