package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bar is one bar of the change chart: a gated cell's direction-adjusted
// change (positive = worse) and its tolerance, in percent or points (the
// scale of verdict.Cell.Worse).
type Bar struct {
	Label     string
	Change    float64
	Tolerance float64
}

// MaxBars caps the bars in one chart: beyond a dozen or so the labels of a
// mermaid xychart overlap and the chart stops being readable.
const MaxBars = 16

// Chart renders bars as a mermaid xychart that GitHub draws inline: one bar
// per gated cell showing how much worse (positive) or better (negative) the
// candidate is, in percent, and a line at each cell's tolerance. Mermaid
// draws bars up from the axis minimum, so the axis always includes zero and
// the caption says where zero is. Bars beyond MaxBars are dropped by the
// caller's ordering (most severe first). Labels are reduced to a safe
// character set because mermaid has no escaping inside quoted strings.
func Chart(title string, bars []Bar) string {
	if len(bars) == 0 {
		return ""
	}
	if len(bars) > MaxBars {
		bars = bars[:MaxBars]
	}
	lo, hi := 0.0, 0.0
	labels := make([]string, len(bars))
	vals := make([]string, len(bars))
	tols := make([]string, len(bars))
	for i, b := range bars {
		c := clampChart(finiteOr(b.Change, 0))
		t := clampChart(finiteOr(b.Tolerance, 0))
		lo = math.Min(lo, c)
		hi = math.Max(hi, math.Max(c, t))
		labels[i] = strconv.Quote(Truncate(chartLabel(b.Label), 40))
		vals[i] = number(c)
		tols[i] = number(t)
	}
	lo, hi = niceFloor(lo), niceCeil(hi*1.1)
	if hi <= lo {
		hi = lo + 1
	}
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title %s\n", strconv.Quote(Truncate(chartLabel(title), 60)))
	fmt.Fprintf(&b, "    x-axis [%s]\n", strings.Join(labels, ", "))
	fmt.Fprintf(&b, "    y-axis \"worse by (%% or pp)\" %s --> %s\n",
		strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi, 'f', -1, 64))
	fmt.Fprintf(&b, "    bar [%s]\n", strings.Join(vals, ", "))
	fmt.Fprintf(&b, "    line [%s]\n", strings.Join(tols, ", "))
	b.WriteString("```\n")
	return b.String()
}

// chartLabel keeps letters, digits and a few punctuation marks, replacing
// anything else (quotes, brackets, newlines) that could break out of a
// mermaid string.
func chartLabel(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case strings.ContainsRune(" .,:;()_-+@%/=", r):
			return r
		}
		return '_'
	}, s)
}

// number formats a chart value with at most two decimals, without "-0".
func number(v float64) string {
	v = round(v, 2)
	if v == 0 {
		v = 0 // drops the sign of -0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// chartLimit caps bars (in percent or points): a change of a million
// percent is off any readable chart, and larger ones (up to 1.8e308 from
// absurd data) overflowed the axis to +Inf.
const chartLimit = 1e6

func clampChart(v float64) float64 { return math.Max(-chartLimit, math.Min(v, chartLimit)) }

func finiteOr(v, def float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return def
	}
	return v
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten (0 stays 0).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return -niceFloor(-v)
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// niceFloor rounds down to -(1, 2 or 5 times a power of ten) for negative
// values; non-negative values floor to 0.
func niceFloor(v float64) float64 {
	if v >= 0 {
		return 0
	}
	return -niceCeil(-v * 1.1)
}
