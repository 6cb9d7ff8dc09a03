package health

import (
	"reflect"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestUnhealthy: the short labels the verdict lists, one per problem, in
// Judge's order (GPU first, then host); nothing for a healthy trial or
// none recorded.
func TestUnhealthy(t *testing.T) {
	tests := []struct {
		name string
		h    *result.Health
		want []string
	}{
		{"not sampled", nil, nil},
		{"healthy", &result.Health{CPUs: 4, Samples: []result.HealthSample{host(3.9, 40000)}}, nil},
		{"busy host", &result.Health{CPUs: 2, Samples: []result.HealthSample{host(2.5, 40000)}, Summary: result.HealthSummary{StealPct: 9}},
			[]string{"load above the 2 CPUs", "CPU steal above 5 %"}},
		{"GPU shared and throttled, memory low", &result.Health{CPUs: 8,
			Samples:   []result.HealthSample{withGPUs(host(1, 1000), gpu(0, 900, "hw_slowdown"))},
			Processes: []result.GPUProcess{{PID: 7, Owner: OwnerOther}}},
			[]string{"GPU throttled (hw_slowdown)", "another process on the GPU", "host memory low"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.h != nil {
				Summarize(tt.h)
			}
			if got := Unhealthy(tt.h, Limits{}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Unhealthy = %q, want %q", got, tt.want)
			}
		})
	}
}
