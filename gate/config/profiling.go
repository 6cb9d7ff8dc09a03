package config

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/trace"
)

// Profiling says when `perfgate gate`, `run` and `ab` take a kernel
// profile: one short extra trial of the worst regressed workload through
// the engine's /start_profile and /stop_profile, whose torch-profiler
// trace the report summarises. The verdict never depends on it. A
// workload's own `profiling:` key overrides When.
type Profiling struct {
	// When is never (the default), on-regression or always (trace.Mode).
	When string `mapstructure:"when"`
	// Dir is the directory the server writes its traces to: the value of
	// its VLLM_TORCH_PROFILER_DIR (SGLANG_TORCH_PROFILER_DIR, `perfgate
	// sim --profile-dir`). Empty: that variable from server.env, else from
	// perfgate's own environment.
	Dir string `mapstructure:"dir"`
	// Requests bounds the profiled trial: the workload's first Requests
	// requests, no warmups (0: DefaultProfileRequests).
	Requests int `mapstructure:"requests"`
}

// DefaultProfileRequests is the profiled trial's length when
// profiling.requests is not set: enough decode steps for a stable time per
// step, few enough that the trace stays in the tens of megabytes.
const DefaultProfileRequests = 32

// Mode is When as a trace.Mode ("" and invalid values are Never; Load
// refuses invalid ones).
func (p Profiling) Mode() trace.Mode {
	m, _ := trace.ParseMode(p.When)
	return m
}

func (p Profiling) problems() []problem {
	var ps []problem
	if _, err := trace.ParseMode(p.When); err != nil {
		ps = append(ps, problem{"profiling.when", fmt.Sprintf("%q: want on-regression, always or never", p.When)})
	}
	if p.Requests < 0 || p.Requests > 100000 {
		ps = append(ps, problem{"profiling.requests", fmt.Sprintf("must be between 1 and 100000 (or 0: %d), got %d", DefaultProfileRequests, p.Requests)})
	}
	return ps
}
