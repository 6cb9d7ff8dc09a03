package vllmbench

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
)

func TestParseOffline(t *testing.T) {
	tests := []struct {
		name, data string
		want       map[string]float64
		note       string
		err        string
	}{
		{
			name: "latency",
			data: `{"avg_latency": 1.25, "latencies": [1.2, 1.3], "percentiles": {"10": 1.1, "25": 1.15, "50": 1.2, "75": 1.3, "90": 1.4, "99": 1.5}}`,
			want: map[string]float64{
				"offline_latency_ms.mean": 1250, "offline_latency_ms.p10": 1100, "offline_latency_ms.p25": 1150,
				"offline_latency_ms.p50": 1200, "offline_latency_ms.p75": 1300, "offline_latency_ms.p90": 1400, "offline_latency_ms.p99": 1500,
			},
		},
		{
			name: "throughput",
			data: `{"elapsed_time": 20.5, "num_requests": 1000, "total_num_tokens": 256000, "requests_per_second": 48.78, "tokens_per_second": 12487.8}`,
			want: map[string]float64{
				"offline_elapsed_s": 20.5, "offline_requests": 1000, "offline_tokens": 256000,
				"offline_requests_per_s": 48.78, "offline_tokens_per_s": 12487.8,
			},
		},
		{
			// A percentile vLLM does not write, and a NaN one.
			name: "odd percentiles",
			data: `{"avg_latency": 2, "percentiles": {"33": 1.0, "50": NaN}}`,
			want: map[string]float64{"offline_latency_ms.mean": 2000},
			note: `percentile "33" has no metric id`,
		},
		{name: "serve file", data: `{"completed": 3, "duration": 1}`, err: "no known key"},
		{name: "broken", data: `{"avg_latency": }`, err: "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes, err := ParseOffline("out.json", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			for k, w := range tt.want {
				if g := got[k]; g-w > 1e-9 || w-g > 1e-9 {
					t.Errorf("%s = %v, want %v", k, g, w)
				}
			}
			if tt.note != "" && !strings.Contains(strings.Join(notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", notes, tt.note)
			}
		})
	}
}

// TestOfflineDirections: a slower engine must read as worse.
func TestOfflineDirections(t *testing.T) {
	for id, want := range map[string]metrics.Direction{
		"offline_latency_ms.p99":    metrics.LowerIsBetter,
		"offline_latency_ms.mean":   metrics.LowerIsBetter,
		metrics.OfflineRequestsPerS: metrics.HigherIsBetter,
		metrics.OfflineTokensPerS:   metrics.HigherIsBetter,
		metrics.OfflineElapsedS:     metrics.Informational,
	} {
		if m := metrics.MustLookup(id); m.Direction != want {
			t.Errorf("%s direction = %v, want %v", id, m.Direction, want)
		}
	}
}

func FuzzParseOffline(f *testing.F) {
	f.Add([]byte(`{"avg_latency": 1.25, "percentiles": {"10": 1.1, "99": 1.5}}`))
	f.Add([]byte(`{"requests_per_second": Infinity, "tokens_per_second": -1, "elapsed_time_ms": 5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := ParseOffline("f.json", data)
		if err != nil {
			return
		}
		for k, x := range v {
			if x != x || x < 0 || x > 1e308 {
				t.Fatalf("%s = %v", k, x)
			}
			if _, ok := metrics.Lookup(k); !ok {
				t.Fatalf("unregistered id %s", k)
			}
		}
	})
}
