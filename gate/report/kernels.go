package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// maxKernelsInline is how many kernels the line under the findings names.
const maxKernelsInline = 4

// kernelsLineIn renders the explanation's kernel diff (gate/trace via
// gate/explain) as one line: the kernels whose time per engine step moved
// most, and the trace files; or why there is no profile. "" without one.
// md escapes for markdown; otherwise the text is plain. Trace files are
// named as the report names every file (shownPath: relative to the artifact, or
// by file name), so no path of a runner's disk reaches the comment.
func kernelsLineIn(d *Data, md bool) string {
	e := d.Comparison.Explanation
	if e != nil && e.Kernels != nil && e.Kernels.Error != "" && d.OutDir != "" {
		// An error names the trace as the runner saw it: inside the
		// artifact, the reader finds it relative to the output directory.
		k, c := *e.Kernels, *e
		k.Error = strings.ReplaceAll(k.Error, filepath.Clean(d.OutDir)+string(filepath.Separator), "")
		c.Kernels = &k
		e = &c
	}
	return kernelsLineShown(e, md, func(p string) string { return shownPath(d, p) })
}

// kernelsLineShown is kernelsLineIn with the file naming given: nil keeps
// paths as the explanation has them.
func kernelsLineShown(e *verdict.Explanation, md bool, shown func(string) string) string {
	if e == nil || e.Kernels == nil {
		return ""
	}
	k := e.Kernels
	name, path := plain, plain
	if md {
		name, path = Escape, Code
	}
	if shown != nil {
		code := path
		path = func(p string) string { return code(shown(p)) }
	}
	if k.Error != "" {
		return fmt.Sprintf("Kernel profile of %s: none (%s); the verdict does not depend on it.", name(k.Workload), name(k.Error))
	}
	if k.CandidateOnly {
		return candidateKernels(k, md, name, path)
	}
	var ops []string
	for i, op := range k.Ops {
		if i == maxKernelsInline {
			break
		}
		change := Percent(op.Change)
		if op.Baseline == 0 {
			change = "new"
		}
		ops = append(ops, fmt.Sprintf("%s %s (%s → %s µs)", name(op.Name), change, Number(op.Baseline), Number(op.Candidate)))
	}
	if len(ops) == 0 {
		ops = append(ops, "no kernels recorded")
	}
	lead := "Kernels per engine step"
	if md {
		lead = "**" + lead + "**"
	}
	return fmt.Sprintf("%s in %s (one profiled trial per arm, %d and %d steps): %s. Traces: %s, %s.", lead, name(k.Workload),
		k.BaselineSteps, k.CandidateSteps, strings.Join(ops, " · "), path(k.BaselineTrace), path(k.CandidateTrace))
}

// candidateKernels is the line of a profile with no baseline side (a gate
// against a baseline recorded without profiling): the candidate's kernels
// by time per step, and the note saying what would give a diff.
func candidateKernels(k *verdict.KernelDiff, md bool, name, path func(string) string) string {
	var ops []string
	for i, op := range k.Ops {
		if i == maxKernelsInline {
			break
		}
		ops = append(ops, fmt.Sprintf("%s %s µs", name(op.Name), Number(op.Candidate)))
	}
	if len(ops) == 0 {
		ops = append(ops, "no kernels recorded")
	}
	lead := "Kernels per engine step"
	if md {
		lead = "**" + lead + "**"
	}
	line := fmt.Sprintf("%s in %s, candidate only (one profiled trial, %d steps): %s. Trace: %s.", lead, name(k.Workload),
		k.CandidateSteps, strings.Join(ops, " · "), path(k.CandidateTrace))
	if k.Note != "" {
		line += " " + name(k.Note)
	}
	return line
}
