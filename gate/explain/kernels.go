package explain

import (
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
)

// MaxKernels is how many kernels a kernel diff keeps: those whose time per
// step moved most.
const MaxKernels = 8

// Kernels turns the op summaries of one profiled trial per arm into the
// explanation's kernel diff. err, when not nil, is why the profiles could
// not be taken or read (it names the file); the diff then carries it
// alone, and the gate goes on without it.
func Kernels(workload, basePath, candPath string, base, cand *trace.Summary, err error) *verdict.KernelDiff {
	k := &verdict.KernelDiff{Workload: workload, BaselineTrace: basePath, CandidateTrace: candPath}
	if err == nil {
		var d []trace.OpChange
		if d, err = trace.Diff(base, cand); err == nil {
			k.BaselineSteps, k.CandidateSteps = base.Steps, cand.Steps
			for _, c := range trace.Top(d, MaxKernels) {
				k.Ops = append(k.Ops, verdict.KernelChange{Name: c.Name, Baseline: c.Baseline, Candidate: c.Candidate, Delta: c.Delta, Change: c.Change})
			}
		}
	}
	if err != nil {
		k.Error = err.Error()
	}
	return k
}

// Worst is the workload a profile should run: the one holding the most
// severe gated regression (the comparison's headline when it regressed),
// "" when nothing regressed.
func Worst(c *verdict.Comparison) string {
	if c == nil {
		return ""
	}
	if h := c.Headline; h != nil && h.Outcome == verdict.Regression {
		return h.Workload
	}
	for _, cell := range c.Cells {
		if cell.Gated && cell.Outcome == verdict.Regression {
			return cell.Workload
		}
	}
	return ""
}

// CandidateKernels is the kernel section when only the candidate was
// profiled: its kernels with the most time per step, and note, which
// says why there is no baseline side and what would give one.
func CandidateKernels(workload, candPath string, cand *trace.Summary, note string) *verdict.KernelDiff {
	k := &verdict.KernelDiff{Workload: workload, CandidateTrace: candPath, CandidateOnly: true, Note: note}
	if cand == nil || cand.Steps == 0 {
		file := candPath
		if cand != nil {
			file = cand.File
		}
		k.Error = "trace " + file + ": no engine steps (execute_model or ProfilerStep#) to divide by"
		return k
	}
	k.CandidateSteps = cand.Steps
	for i, op := range cand.Ops { // most total time first
		if i == MaxKernels {
			break
		}
		per := op.TotalUS / float64(cand.Steps)
		k.Ops = append(k.Ops, verdict.KernelChange{Name: op.Name, Candidate: per, Delta: per})
	}
	return k
}
