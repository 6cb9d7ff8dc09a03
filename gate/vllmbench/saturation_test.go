package vllmbench

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestShapeOfShareOfSaturation: a result whose rate was a share of
// saturation exports the absolute rate it ran at, not vLLM's default inf.
func TestShapeOfShareOfSaturation(t *testing.T) {
	spec, err := json.Marshal(result.Spec{Kind: result.KindServing, Name: "two", Cell: "two",
		Load: result.Load{Requests: 100, Concurrency: 8, Burstiness: 1, SaturationShare: 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{Workload: result.Workload{Spec: spec}, Saturation: &result.Saturation{Share: 0.8, ThroughputRPS: 5, RateRPS: 4}}
	s := shapeOf(r)
	if s.rate != 4 || s.numPrompts != 100 || s.concurrency != 8 {
		t.Errorf("shape %+v, want rate 4 (80 %% of 5), 100 prompts, concurrency 8", s)
	}
	r.Saturation = nil
	if s := shapeOf(r); !math.IsInf(s.rate, 1) {
		t.Errorf("without a saturation record: rate %v, want vLLM's default inf (the rate is unknown)", s.rate)
	}
}
