package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestKernelsCandidateOnly: a gate whose baseline has no op summary shows
// the candidate's kernels and says what would give a diff; markdown
// escapes the names a trace holds.
func TestKernelsCandidateOnly(t *testing.T) {
	e := &verdict.Explanation{Kernels: &verdict.KernelDiff{Workload: "decode", CandidateTrace: "out/profiles/t.json", CandidateSteps: 64, CandidateOnly: true,
		Note: "No baseline op summary: record baselines with profiling: always to get a diff.",
		Ops:  []verdict.KernelChange{{Name: "mlp", Candidate: 115, Delta: 115}, {Name: "attn<*x*>", Candidate: 11.5, Delta: 11.5}}}}
	got := kernelsLine(e, false)
	want := "Kernels per engine step in decode, candidate only (one profiled trial, 64 steps): mlp 115.0 µs · attn<*x*> 11.50 µs. Trace: out/profiles/t.json. No baseline op summary: record baselines with profiling: always to get a diff."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if md := kernelsLine(e, true); !strings.HasPrefix(md, "**Kernels per engine step** in decode, candidate only") || strings.Contains(md, "<*x*>") || !strings.Contains(md, "`out/profiles/t.json`") {
		t.Errorf("markdown %s", md)
	}
}
