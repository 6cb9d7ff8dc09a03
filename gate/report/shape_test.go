package report

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestShapeNamesTheRamp: a ramp-up cell is recorded with rate inf, as vLLM
// records it; the report says the ramp instead of "rate inf", which would
// read as everything sent at once.
func TestShapeNamesTheRamp(t *testing.T) {
	spec := result.Spec{Kind: result.KindServing, Name: "r", Cell: "r", API: "completions",
		Load: result.Load{Requests: 8, Rate: math.Inf(1), Burstiness: 1, RampUp: &result.RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 10}}}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{Workload: result.Workload{Cell: "r", Spec: b}}
	if got, want := shape(r), "concurrency unlimited, rate linear ramp 1 to 10"; got != want {
		t.Errorf("shape %q, want %q", got, want)
	}
	spec.Load.RampUp = nil
	b, _ = json.Marshal(spec)
	r.Workload.Spec = b
	if got, want := shape(r), "concurrency unlimited, rate inf"; got != want {
		t.Errorf("shape %q, want %q", got, want)
	}
}
