package report

import (
	"math"
	"strconv"
	"strings"
)

// Percent formats a relative change given in percent (7.9, the scale of
// verdict.Cell.Change) the way the report writes changes: "+7.9 %".
// Changes too small for one decimal get two, so a real but tiny change
// never reads as "+0.0 %".
func Percent(pct float64) string {
	switch {
	case math.IsNaN(pct):
		return "n/a"
	case math.IsInf(pct, 1):
		return "+∞ %"
	case math.IsInf(pct, -1):
		return "-∞ %"
	}
	return signed(pct, 1) + " %"
}

// Points formats an absolute change of a ratio metric given in percentage
// points (0.5): "+0.5 pp".
func Points(pp float64) string {
	if math.IsNaN(pp) || math.IsInf(pp, 0) {
		return "n/a"
	}
	return signed(pp, 1) + " pp"
}

// huge is where numbers switch to scientific notation: a change of a
// million percent or a value of 10^15 is already beyond any measurement,
// and 'f' formatting of 1.7e308 writes 309 digits.
const huge = 1e15

// signed formats v with a leading sign and at least prec decimals, adding
// one more decimal when v would otherwise round to zero.
func signed(v float64, prec int) string {
	if math.Abs(v) >= 1e6 {
		s := strconv.FormatFloat(v, 'g', 3, 64)
		if v > 0 {
			return "+" + s
		}
		return s
	}
	if v != 0 && math.Abs(v) < 0.5*math.Pow(10, -float64(prec)) {
		prec++
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strconv.FormatFloat(0, 'f', prec, 64)
		return "±" + s
	}
	if v > 0 {
		return "+" + s
	}
	return s
}

// Range formats an interval of relative changes in percent as
// "+6.1 to +9.8 %".
func Range(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "n/a"
	}
	return strings.TrimSuffix(Percent(lo), " %") + " to " + Percent(hi)
}

// PointsRange is Range in percentage points.
func PointsRange(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "n/a"
	}
	return strings.TrimSuffix(Points(lo), " pp") + " to " + Points(hi)
}

// Number formats a measured value with about four significant digits and
// thousands separators for large values: 0.1234, 12.35, 123.5, 1,235.
func Number(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 0):
		return "∞"
	}
	a := math.Abs(v)
	var s string
	switch {
	case a == 0:
		return "0"
	case a >= huge:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case a >= 1000:
		s = strconv.FormatFloat(v, 'f', 0, 64)
		return groupThousands(s)
	case a >= 100:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.001:
		s = strconv.FormatFloat(v, 'f', 3, 64)
	default:
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	return s
}

// groupThousands inserts commas into an integer string.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Value formats a metric value with its unit: "123.5 ms", "1,235 tok/s",
// "99.50 %" for ratios, "12" for counts.
func Value(v float64, unit string) string {
	switch unit {
	case "ratio":
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Number(v)
		}
		return strconv.FormatFloat(v*100, 'f', 2, 64) + " %"
	case "count":
		if math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) || math.Abs(v) >= huge {
			return Number(v)
		}
		return groupThousands(strconv.FormatFloat(v, 'f', 0, 64))
	case "":
		return Number(v)
	}
	return Number(v) + " " + unit
}
