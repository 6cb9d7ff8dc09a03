package workload

import (
	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/trace"
)

// profiling reads `profiling: never | on-regression | always`: when a gate
// takes a kernel profile of this workload (package trace), overriding
// perfgate.yaml's profiling.when. It changes nothing measured, so neither
// the spec nor the hash holds it.
func (d *decoder) profiling(v *yaml.Node, f *File) {
	n0 := len(d.errs)
	s := d.str(v, "profiling")
	if len(d.errs) > n0 {
		return
	}
	if s == "" {
		d.errorf(v.Line, "profiling must be on-regression, always or never, got an empty string")
		return
	}
	m, err := trace.ParseMode(s)
	if err != nil {
		d.errorf(v.Line, "profiling %q: want on-regression, always or never", s)
		return
	}
	f.Profiling = m
}
