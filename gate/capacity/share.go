package capacity

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// SaturationSuffix ends a rate written as a share of saturation,
// "80%-of-saturation": the two-step protocol of the studies (measure
// saturation with an unlimited-rate run, then run at a fraction of it).
const SaturationSuffix = "%-of-saturation"

var sharePattern = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)%-of-saturation$`)

// IsShareOfSaturation reports whether s is written as a share of
// saturation (well formed or not), so a parser can give its specific
// error instead of "not a number".
func IsShareOfSaturation(s string) bool {
	return len(s) > len(SaturationSuffix) && s[len(s)-len(SaturationSuffix):] == SaturationSuffix
}

// ParseShare reads "80%-of-saturation" as 0.8. The percentage is a plain
// decimal in (0, 100]: above saturation the rate would only build a
// backlog, and a share of 0 sends nothing.
func ParseShare(s string) (float64, error) {
	m := sharePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q: a share of saturation is written like 80%%-of-saturation", s)
	}
	pct, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(pct, 0) {
		return 0, fmt.Errorf("%q: %s is not a percentage", s, m[1])
	}
	if !(pct > 0 && pct <= 100) {
		return 0, fmt.Errorf("%q: the percentage must be above 0 and at most 100", s)
	}
	return pct / 100, nil
}

// FormatShare writes a share as ParseShare reads it: 0.8 as
// "80%-of-saturation".
func FormatShare(share float64) string {
	return strconv.FormatFloat(share*100, 'f', -1, 64) + SaturationSuffix
}
