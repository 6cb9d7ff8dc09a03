package metrics

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// tolerancePattern is a non-negative decimal with an optional unit.
var tolerancePattern = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(%|pp)?$`)

// ParseTolerance reads a practical-significance margin in any of the forms
// perfgate accepts wherever a tolerance is written (workload gate rules,
// perfgate.yaml's policy.tolerances, PERFGATE_POLICY_TOLERANCES), so the
// same text means the same margin everywhere:
//
//   - "3%": a relative change, 0.03, for metrics compared by ratio;
//   - "0.5pp": percentage points, 0.005, for ratio metrics (success_rate,
//     goodput_ratio), which are compared by difference;
//   - "0.03": a bare fraction, for either kind, below 1.
//
// ratio says whether the metric is a ratio metric (unit "ratio"). The
// result is a fraction in (0, 1]. A bare number of 1 or more is refused:
// "3" could mean 3 % or 300 %.
func ParseTolerance(text string, ratio bool) (float64, error) {
	t := strings.TrimSpace(text)
	m := tolerancePattern.FindStringSubmatch(t)
	if m == nil {
		if ratio {
			return 0, fmt.Errorf("%q is not a tolerance: write percentage points such as 0.5pp, or a fraction such as 0.005", text)
		}
		return 0, fmt.Errorf("%q is not a tolerance: write a percentage such as 3%%, or a fraction such as 0.03", text)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a tolerance: %w", text, err)
	}
	switch m[2] {
	case "%":
		if ratio {
			return 0, fmt.Errorf("%s: the metric is a ratio, compared by difference: write percentage points such as 0.5pp, or a fraction such as 0.005", t)
		}
		v /= 100
	case "pp":
		if !ratio {
			return 0, fmt.Errorf("%s: percentage points are for ratio metrics; write a percentage such as 3%%, or a fraction such as 0.03", t)
		}
		v /= 100
	default:
		if v >= 1 {
			unit := "%"
			if ratio {
				unit = "pp"
			}
			return 0, fmt.Errorf("%s: a bare tolerance is a fraction below 1 (0.03 = 3 %%), so %s could mean %s %% or %s00 %%; write %s%s", t, t, t, t, t, unit)
		}
	}
	if !(v > 0 && v <= 1) {
		return 0, fmt.Errorf("%s: a tolerance must be above 0 and at most 100 %% (leave it out for the default)", t)
	}
	return v, nil
}
