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
	got := kernelsLineShown(e, false, nil)
	want := "Kernels per engine step in decode, candidate only (one profiled trial, 64 steps): mlp 115.0 µs · attn<*x*> 11.50 µs. Trace: out/profiles/t.json. No baseline op summary: record baselines with profiling: always to get a diff."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if md := kernelsLineShown(e, true, nil); !strings.HasPrefix(md, "**Kernels per engine step** in decode, candidate only") || strings.Contains(md, "<*x*>") || !strings.Contains(md, "`out/profiles/t.json`") {
		t.Errorf("markdown %s", md)
	}
}

// TestKernelsNameArtifactPaths: in a report the traces are named inside
// the artifact, and a trace from another machine (a baseline's, recorded
// by the nightly run) by its file name: no runner path in a comment.
func TestKernelsNameArtifactPaths(t *testing.T) {
	d := &Data{OutDir: "/runner/work/out", Comparison: &verdict.Comparison{Explanation: &verdict.Explanation{Kernels: &verdict.KernelDiff{
		Workload: "w", BaselineTrace: "/home/nightly/out/profiles/base.pt.trace.json.gz", CandidateTrace: "/runner/work/out/profiles/cand.pt.trace.json.gz",
		BaselineSteps: 1, CandidateSteps: 1, Ops: []verdict.KernelChange{{Name: "mlp", Baseline: 1, Candidate: 2, Change: 100}}}}}}
	got := kernelsLineIn(d, true)
	if !strings.Contains(got, "Traces: `base.pt.trace.json.gz`, `profiles/cand.pt.trace.json.gz`.") || strings.Contains(got, "/runner") || strings.Contains(got, "/home") {
		t.Errorf("got %s", got)
	}
}

// TestKernelsErrorInsideArtifact: a failed profile's note names the trace
// inside the artifact.
func TestKernelsErrorInsideArtifact(t *testing.T) {
	d := &Data{OutDir: "/runner/work/out/", Comparison: &verdict.Comparison{Explanation: &verdict.Explanation{Kernels: &verdict.KernelDiff{
		Workload: "w", Error: "trace /runner/work/out/profiles/x.json: data after the trace's closing bracket"}}}}
	want := "Kernel profile of w: none (trace profiles/x.json: data after the trace's closing bracket); the verdict does not depend on it."
	if got := kernelsLineIn(d, false); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if d.Comparison.Explanation.Kernels.Error != "trace /runner/work/out/profiles/x.json: data after the trace's closing bracket" {
		t.Error("rendering changed the comparison")
	}
}
