package report

import (
	"math"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The chart of the PR comment is a column of text bars inside the list of
// regressed and undecided cells, not a mermaid chart: mermaid's xychart
// draws bars up from the axis minimum rather than from zero, its x-axis
// labels overlap beyond a handful of bars, and it does not render in
// e-mail notifications or terminals. Block characters render everywhere,
// start at zero by construction and share one scale.

// MaxBars caps the bars in one comment: beyond about eight the column
// stops being a picture and becomes a second copy of the numbers.
const MaxBars = 8

// BarWidth is the length of the longest bar in character cells.
const BarWidth = 12

// eighths are the partial blocks, from one eighth of a cell to a full one.
var eighths = []rune("▏▎▍▌▋▊▉█")

// Bar draws v on a scale where full (> 0) fills BarWidth cells, in eighths
// of a cell. Values at or below zero (the candidate is no worse) draw no
// bar: the column shows how much worse, from zero, never a length that
// starts anywhere else. A positive value too small for one eighth still
// gets the thinnest block, so a worsening never looks like none.
func Bar(v, full float64) string {
	if !(v > 0) || !(full > 0) || math.IsInf(v, 0) {
		if math.IsInf(v, 1) && full > 0 {
			return strings.Repeat("█", BarWidth)
		}
		return ""
	}
	n := int(math.Round(math.Min(v/full, 1) * BarWidth * 8))
	if n < 1 {
		n = 1
	}
	return strings.Repeat("█", n/8) + partial(n%8)
}

func partial(k int) string {
	if k == 0 {
		return ""
	}
	return string(eighths[k-1])
}

// sparks are the eight heights of a sparkline, lowest first.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws the values as one character each, scaled from their
// minimum (▁) to their maximum (█); a flat series is drawn at mid height.
// Values that are not finite are drawn as a space.
func Sparkline(vals []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range vals {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(sparks[3])
		default:
			b.WriteRune(sparks[int(math.Round((v-lo)/(hi-lo)*float64(len(sparks)-1)))])
		}
	}
	return b.String()
}

// worseBy is the cell's change with the sign that says "worse": the
// table's change for metrics where lower is better, the table's change
// sign-flipped for those where higher is better (a throughput drop of
// 11.8 % is worse by 11.8 %). It is the table's number, not another
// scale: the bar column and the table cannot disagree.
func worseBy(cell *verdict.Cell) float64 {
	if cell.Direction == metrics.HigherIsBetter.String() {
		return -cell.Change
	}
	return cell.Change
}

// WorseBy formats worseBy like the table formats the change.
func WorseBy(cell *verdict.Cell) string {
	if cell.Absolute {
		return Points(worseBy(cell))
	}
	return Percent(worseBy(cell))
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
