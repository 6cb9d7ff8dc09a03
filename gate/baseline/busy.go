package baseline

import (
	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/result"
)

// Busy counts r's valid trials that ran on a busy runner (a host warning
// of health.Judge at its default limits: load above the CPUs, steal, low
// memory) and
// returns the first such warning. The history is a record of what the
// server measured; a night on a busy host measured the neighbours too,
// and recording it would widen every later baseline's spread.
func Busy(r *result.Result) (n int, first string) {
	for _, t := range r.ValidTrials() {
		if t.Health == nil {
			continue
		}
		if _, warnings := health.Judge(t.Health, health.Limits{}); len(warnings) > 0 {
			if n == 0 {
				first = warnings[0]
			}
			n++
		}
	}
	return n, first
}
