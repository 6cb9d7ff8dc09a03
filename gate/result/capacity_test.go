package result

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCapacityRoundTrip: a capacity cell's spec, its searches and a
// share-of-saturation record read back as written.
func TestCapacityRoundTrip(t *testing.T) {
	spec := Spec{Kind: KindCapacity, Name: "cap", Cell: "cap", API: "completions", Model: "m",
		Dataset:  Dataset{Kind: "random", InputTokens: 512, OutputTokens: 256, Seed: 42},
		Load:     Load{Requests: 200, Burstiness: 1},
		SLO:      SLO{TTFTms: 3000, E2ELms: 30000},
		Trials:   TrialBudget{Min: 3, Max: 5},
		Capacity: &CapacitySpec{GoodputShare: 0.95, Over: OverRate, MaxProbes: 10, Resolution: 0.02},
		Gate:     []GateRule{{Metric: "capacity_rps"}}}
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, spec) {
		t.Errorf("spec round trip:\n got %+v\nwant %+v", back, spec)
	}
	// Kind and capacity come after every serving key: the serving layout
	// is unchanged for serving cells.
	if !strings.HasSuffix(string(raw), `"kind":"capacity","capacity":{"goodput_share":0.95,"over":"rate","max_probes":10,"resolution":0.02}}`) {
		t.Errorf("capacity keys not last: %s", raw)
	}
	share := Spec{Kind: KindServing, Name: "two", Cell: "two", Load: Load{Requests: 10, Burstiness: 1, SaturationShare: 0.8}}
	raw, _ = json.Marshal(share)
	if err := json.Unmarshal(raw, &back); err != nil || back.Load.SaturationShare != 0.8 || back.Kind != KindServing {
		t.Errorf("share of saturation: %s -> %+v, %v", raw, back.Load, err)
	}
	if _, ok := back.Shape(); ok {
		t.Error("a share-of-saturation spec has no absolute rate, but Shape says it has")
	}
	if _, err := json.Marshal(Spec{Kind: KindCapacity, Cell: "x"}); err == nil {
		t.Error("a capacity spec without settings marshalled")
	}

	r := &Result{Schema: Schema, Workload: Workload{Name: "cap", Cell: "cap", Hash: "h", Spec: json.RawMessage(raw)}, Complete: true,
		Saturation: &Saturation{Share: 0.8, ThroughputRPS: 4.3, RateRPS: 3.44, Requests: 200, DurationS: 46.5},
		Trials: []Trial{{Index: 0, Valid: true, Values: map[string]float64{"capacity_rps": 3.4},
			Capacity: &Capacity{Over: OverRate, Target: 0.95, Capacity: 3.4, Low: 3.3, High: 3.6, Saturation: 4.3, Converged: true,
				Probes: []Probe{{Unlimited: true, Good: 10, Total: 200, Share: 0.05, ShareLow: 0.03, ShareHigh: 0.09, Throughput: 4.3},
					{Load: 3.4, Good: 195, Total: 200, Share: 0.975, ShareLow: 0.94, ShareHigh: 0.99, Pass: true, Throughput: 3.3,
						Latency: map[string]float64{"ttft_ms.p99": 2900}}}}}}}
	data, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal("r.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Trials[0].Capacity, r.Trials[0].Capacity) || !reflect.DeepEqual(got.Saturation, r.Saturation) {
		t.Errorf("result round trip lost the search or the saturation:\n%s", data)
	}
}
