package workload

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

func mustExpand(t *testing.T, src string) *Manifest {
	t.Helper()
	f, err := Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil || len(ms) != 1 {
		t.Fatalf("expand: %d cells, %v", len(ms), err)
	}
	return ms[0]
}

const capacityFile = `name: cap
kind: capacity
dataset: {kind: random, input_tokens: 16, output_tokens: 8, seed: 3}
load: {requests: 40, burstiness: 1}
slo: {ttft_ms: 500, e2el_ms: 3000}
capacity: {goodput_share: 90%}
`

func TestCapacityFile(t *testing.T) {
	m := mustExpand(t, capacityFile)
	if !m.IsCapacity() || m.Capacity == nil {
		t.Fatalf("kind %q, capacity %v: want a capacity cell", m.Kind, m.Capacity)
	}
	want := CapacitySpec{GoodputShare: 0.9, Over: result.OverRate, MaxProbes: 10, Resolution: 0.02}
	if *m.Capacity != want {
		t.Errorf("capacity %+v, want the defaults %+v", *m.Capacity, want)
	}
	if len(m.Gate) != 2 || m.Gate[0].Metric != MetricCapacityRPS || m.Gate[1].Metric != MetricSaturation {
		t.Errorf("gate %+v, want capacity_rps and saturation_throughput gated by default", m.Gate)
	}
	s, err := result.Workload{Spec: m.Spec}.ParseSpec()
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != result.KindCapacity || s.Capacity == nil || *s.Capacity != want || s.Load.Rate != 0 {
		t.Errorf("spec %+v: want kind capacity with its settings and no rate", s)
	}
	if _, ok := s.Shape(); ok {
		t.Error("a capacity spec has no single load point, but Shape says it has")
	}
	// The hash covers the search settings: another share is another cell.
	other := mustExpand(t, capacityFile[:len(capacityFile)-len("{goodput_share: 90%}\n")]+"{goodput_share: 0.95}\n")
	if other.Hash == m.Hash {
		t.Error("goodput_share 90% and 95% share a hash")
	}
	over := mustExpand(t, capacityFile+"gate:\n  - {metric: capacity_rps, tolerance: 10%}\n")
	if len(over.Gate) != 2 || over.Gate[0].Tolerance != 0.1 {
		t.Errorf("gate %+v: the workload's own capacity_rps rule must be kept, saturation added", over.Gate)
	}
}

// TestAtMatchesExpansion checks the claim Manifest.At rests on: the
// arrivals of a cell expanded at rate r equal the unit-rate arrivals
// scaled by 1/r, for Poisson, bursty and constant spacing.
func TestAtMatchesExpansion(t *testing.T) {
	for _, burst := range []string{"1", "0.5", "inf"} {
		for _, rate := range []string{"2.5", "40", "1000"} {
			serving := mustExpand(t, "name: s\ndataset: {kind: random, input_tokens: 16, output_tokens: 8, seed: 3}\nload: {requests: 200, rate: "+rate+", burstiness: "+burst+"}\n")
			capa := mustExpand(t, "name: s\nkind: capacity\ndataset: {kind: random, input_tokens: 16, output_tokens: 8, seed: 3}\nload: {requests: 200, burstiness: "+burst+"}\nslo: {ttft_ms: 5}\ncapacity: {goodput_share: 0.9}\n")
			at := capa.At(serving.Rate, 0)
			if at.IsCapacity() || at.Rate != serving.Rate {
				t.Fatalf("At: kind %q rate %v", at.Kind, at.Rate)
			}
			for i := range at.Requests {
				if d := at.Requests[i].Arrival - serving.Requests[i].Arrival; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("burstiness %s rate %s: request %d arrives at %v, expansion says %v", burst, rate, i, at.Requests[i].Arrival, serving.Requests[i].Arrival)
				}
			}
			if capa.Requests[5].Arrival == at.Requests[5].Arrival && serving.Rate != 1 {
				t.Fatal("At changed the manifest it was called on")
			}
		}
	}
	inf := mustExpand(t, capacityFile).At(math.Inf(1), 8)
	for _, r := range inf.Requests {
		if r.Arrival != 0 {
			t.Fatalf("rate inf: arrival %v, want 0", r.Arrival)
		}
	}
	if inf.Concurrency != 8 || !inf.Unlimited() {
		t.Errorf("At(inf, 8): concurrency %d unlimited %v", inf.Concurrency, inf.Unlimited())
	}
}

func TestSaturationShareRate(t *testing.T) {
	src := "name: two\ndataset: {kind: random, input_tokens: 16, output_tokens: 8, seed: 3}\nload: {requests: 40, rate: 80%-of-saturation}\n"
	m := mustExpand(t, src)
	if m.SaturationShare != 0.8 || m.Rate != 1 || m.IsCapacity() {
		t.Errorf("share %v rate %v kind %q: want 0.8 of saturation, arrivals timed for 1 req/s", m.SaturationShare, m.Rate, m.Kind)
	}
	var raw map[string]any
	if err := json.Unmarshal(m.Spec, &raw); err != nil {
		t.Fatal(err)
	}
	load := raw["load"].(map[string]any)
	if load["saturation_share"] != 0.8 || load["rate"] != 0.0 {
		t.Errorf("spec load %v: want saturation_share 0.8 and rate 0", load)
	}
	unit := mustExpand(t, "name: two\ndataset: {kind: random, input_tokens: 16, output_tokens: 8, seed: 3}\nload: {requests: 40, rate: 1}\n")
	if unit.Hash == m.Hash {
		t.Error("rate 1 and a share of saturation share a hash")
	}
}

// TestStudyCapacityWorkload pins the 7B study's capacity workload to the
// study: 512 in / 256 out, TTFT < 3 s and E2EL < 30 s for 95 % of requests.
func TestStudyCapacityWorkload(t *testing.T) {
	ms, err := LoadFile("../../workloads/q7b-512-256-capacity.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	if len(ms) != 1 || !m.IsCapacity() || m.SLO.TTFTms != 3000 || m.SLO.E2ELms != 30000 || m.Capacity.GoodputShare != 0.95 ||
		m.Capacity.Over != result.OverRate || m.Capacity.MaxProbes != 10 || m.Burstiness != 1 || m.GPUs != 1 {
		t.Fatalf("manifest %s: %+v, slo %+v", m.Cell, m.Capacity, m.SLO)
	}
	for _, r := range m.Requests {
		if len(r.PromptIDs) != 512 || r.MaxTokens != 256 {
			t.Fatalf("request %d: %d ids, max_tokens %d", r.Index, len(r.PromptIDs), r.MaxTokens)
		}
	}
	// Timed for 1 req/s: the last of 200 arrivals at 200 s.
	if last := m.Requests[len(m.Requests)-1].Arrival; last != 200*time.Second {
		t.Errorf("last arrival %v, want 200s", last)
	}
}
