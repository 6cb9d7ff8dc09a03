package workload

import (
	"math"
	"path/filepath"
	"testing"
)

// TestStudyWorkloads pins each shipped study workload to the settings of
// the study it reproduces (docs/studies.md), so an edit that drifts from
// the study is caught.
func TestStudyWorkloads(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name              string
		in, out, requests int
		concurrency, gpus int
		rate              float64
		sloTTFT, sloE2EL  float64
	}{
		{"cx8-1000-300-c6", 1000, 300, 64, 6, 8, inf, 0, 0},
		{"cx8-4000-1000-c16", 4000, 1000, 64, 16, 8, inf, 0, 0},
		{"a100-32000-100", 32000, 100, 100, 0, 8, inf, 0, 0},
		{"a100-4000-200", 4000, 200, 500, 0, 8, inf, 0, 0},
		{"a100-2000-100", 2000, 100, 500, 0, 8, inf, 0, 0},
		{"a100-128-4", 128, 4, 1000, 0, 8, inf, 0, 0},
		{"h100-1024-128-r1000", 1024, 128, 1000, 0, 1, 1000, 0, 0},
		{"h100-32000-100-r1", 32000, 100, 100, 0, 1, 1, 0, 0},
		{"h100-1000-2000-r1", 1000, 2000, 200, 0, 1, 1, 0, 0},
		{"q7b-512-256-r10", 512, 256, 500, 0, 1, 10, 0, 0},
		{"q7b-512-256-r2", 512, 256, 500, 0, 1, 2, 0, 0},
		{"q7b-512-256-c32", 512, 256, 500, 32, 1, inf, 3000, 30000},
		{"q7b-512-256-c64", 512, 256, 500, 64, 1, inf, 3000, 30000},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := LoadFile(filepath.Join("..", "..", "workloads", c.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			m := ms[0]
			if len(ms) != 1 || m.Cell != c.name || len(m.Requests) != c.requests || m.Concurrency != c.concurrency ||
				m.Rate != c.rate || m.GPUs != c.gpus || m.SLO.TTFTms != c.sloTTFT || m.SLO.E2ELms != c.sloE2EL ||
				m.Burstiness != 1 || m.API != Completions || !m.Sampling.IgnoreEOS || *m.Sampling.Temperature != 0 {
				t.Fatalf("manifest %s: %d requests, c%d, rate %v, gpus %d, slo %+v", m.Cell, len(m.Requests), m.Concurrency, m.Rate, m.GPUs, m.SLO)
			}
			for _, r := range m.Requests {
				if len(r.PromptIDs) != c.in || r.MaxTokens != c.out {
					t.Fatalf("request %d: %d ids, max_tokens %d", r.Index, len(r.PromptIDs), r.MaxTokens)
				}
			}
			if last := m.Requests[len(m.Requests)-1].Arrival.Seconds(); c.rate != inf && last != float64(c.requests)/c.rate {
				t.Errorf("last arrival %vs, want %v", last, float64(c.requests)/c.rate)
			}
		})
	}
	for _, name := range []string{"a100-sharegpt-1000", "h100-sharegpt-r1000"} {
		f, err := Parse(filepath.Join("..", "..", "workloads", name+".yaml"), mustRead(t, filepath.Join("..", "..", "workloads", name+".yaml")))
		if err != nil {
			t.Fatal(err)
		}
		if f.Dataset.Kind != KindShareGPT || f.Load.Requests != 1000 || f.Dataset.Seed != 42 || f.Dataset.Required {
			t.Errorf("%s: %+v", name, f.Dataset)
		}
	}
}
