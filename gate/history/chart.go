package history

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Chart geometry, in SVG user units: the plot area is the box inside the
// margins, where the axis labels and step captions go.
const (
	chartW, chartH   = 720, 240
	marginL, marginR = 72, 16
	marginT, marginB = 28, 44
	plotW, plotH     = chartW - marginL - marginR, chartH - marginT - marginB
	yTicks           = 5
	maxXTicks        = 12
)

// chart is one metric's line chart, already laid out: every field is a
// number or a string that html/template escapes into the SVG.
type chart struct {
	Title, YLabel, XLabel string
	W, H                  int
	Left, Top, Right, Bot float64
	Line                  string // polyline points of the run centres
	Band                  string // polygon of centre +- within-session spread
	Dots                  []dot
	YTicks, XTicks        []tick
	Steps                 []stepMark
	// Segment is the shaded current segment: x and width.
	SegX, SegW float64
	SegLabel   string
}

// PlotH is the plot area's height.
func (c chart) PlotH() float64 { return c.Bot - c.Top }

// MidX and MidY centre the axis labels.
func (c chart) MidX() float64 { return (c.Left + c.Right) / 2 }

// MidY centres the y-axis label.
func (c chart) MidY() float64 { return (c.Top + c.Bot) / 2 }

// TickX is where the y tick labels end, left of the axis.
func (c chart) TickX() float64 { return c.Left - 6 }

// XTickY is the baseline of the run numbers under the axis.
func (c chart) XTickY() float64 { return c.Bot + 16 }

// XLabelY is the baseline of the x-axis label.
func (c chart) XLabelY() float64 { return c.Bot + 34 }

// StepLabelY is the baseline of the step captions, above the plot.
func (c chart) StepLabelY() float64 { return c.Top - 8 }

// SegLabelX and SegLabelY put the segment's caption in its bottom right.
func (c chart) SegLabelX() float64 { return c.SegX + c.SegW - 4 }

// SegLabelY is the caption's baseline, just above the x axis.
func (c chart) SegLabelY() float64 { return c.Bot - 6 }

type dot struct {
	X, Y  float64
	Title string
}

type tick struct {
	At   float64
	Text string
}

// stepMark is a step's vertical line; its caption is anchored away from
// the nearer edge so it stays inside the chart.
type stepMark struct {
	X             float64
	Label, Anchor string
}

// newChart lays out m's series over the cell's runs: x is the run number
// (oldest left), y the level with its within-session spread as a band
// (CV for relative metrics, SD in points for ratio metrics), each step a
// vertical line at its first run captioned with the commit and size, and
// the runs from segFrom to the newest shaded as the current segment.
func newChart(c CellReport, m MetricReport, segFrom int) chart {
	n := len(c.Sessions)
	ch := chart{Title: m.Label, XLabel: "run, oldest to newest", YLabel: m.Label, W: chartW, H: chartH,
		Left: marginL, Top: marginT, Right: marginL + plotW, Bot: marginT + plotH}
	if m.Unit != "" {
		ch.YLabel += " (" + m.Unit + ")"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range m.Points {
		l, h := spreadBounds(m, p)
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	if pad := (hi - lo) * 0.05; pad > 0 {
		lo, hi = lo-pad, hi+pad
	} else {
		d := math.Max(math.Abs(lo)*0.05, 0.01)
		lo, hi = lo-d, hi+d
	}
	if m.Unit == "ratio" && hi > 1 {
		hi = 1 // no ratio exceeds 1: a success rate tops out at 100 %
	}
	if lo < 0 {
		// Latencies, rates and ratios are never negative: the axis stops
		// at zero rather than inviting a reading below it.
		lo = 0
	}
	ticks, step := niceTicks(lo, hi, yTicks)
	lo, hi = ticks[0], ticks[len(ticks)-1]
	x := func(run int) float64 {
		if n <= 1 {
			return marginL + plotW/2
		}
		return marginL + float64(run-1)/float64(n-1)*plotW
	}
	y := func(v float64) float64 { return marginT + (hi-v)/(hi-lo)*plotH }
	var line, upper, lower []string
	for _, p := range m.Points {
		l, h := spreadBounds(m, p)
		px := x(p.Run)
		line = append(line, pt(px, y(p.Value)))
		upper = append(upper, pt(px, y(h)))
		lower = append([]string{pt(px, y(l))}, lower...)
		s := c.Sessions[p.Run-1]
		ch.Dots = append(ch.Dots, dot{X: round(px), Y: round(y(p.Value)), Title: fmt.Sprintf("run %d, %s, %s: %s, spread %s over %d trials",
			p.Run, day(s.Date), commitName(s.Commit), level(m, p), spreadText(m, p), p.N)})
	}
	ch.Line = strings.Join(line, " ")
	ch.Band = strings.Join(append(upper, lower...), " ")
	for _, v := range ticks {
		ch.YTicks = append(ch.YTicks, tick{At: round(y(v)), Text: tickText(m, v, step)})
	}
	every := (n + maxXTicks - 1) / maxXTicks
	for run := 1; run <= n; run += every {
		ch.XTicks = append(ch.XTicks, tick{At: round(x(run)), Text: strconv.Itoa(run)})
	}
	for _, st := range m.Steps {
		s := c.Sessions[st.Session]
		anchor := "middle"
		switch sx := x(s.Run); {
		case sx < marginL+plotW/4:
			anchor = "start"
		case sx > marginL+plotW*3/4:
			anchor = "end"
		}
		ch.Steps = append(ch.Steps, stepMark{X: round(x(s.Run)), Anchor: anchor, Label: fmt.Sprintf("step at run %d, %s: %s", s.Run, commitName(s.Commit), signed(st.Change, st.Absolute))})
	}
	// The segment's shade reaches half a run either side of its ends, so a
	// one-run segment still shows.
	half := 0.0
	if n > 1 {
		half = plotW / float64(n-1) / 2
	}
	from, to := math.Max(marginL, x(segFrom)-half), math.Min(marginL+plotW, x(n)+half)
	if n <= 1 {
		from, to = marginL, marginL+plotW
	}
	ch.SegX, ch.SegW = round(from), round(to-from)
	ch.SegLabel = fmt.Sprintf("current segment: runs %d-%d", segFrom, n)
	return ch
}

// spreadBounds is the band around p: for relative metrics the centre
// times exp(±s) with s the log-scale spread (s² = log(1 + CV²)), the scale
// the trials were summarised on, so the band is as wide in ratio above as
// below and never reaches zero (centre × (1 − CV) drew latencies of −21 ms
// for a spread CV above 100 %); for ratio metrics centre ± SD, within
// [0, 1].
func spreadBounds(m MetricReport, p Level) (float64, float64) {
	if m.Unit == "ratio" {
		return math.Max(0, p.Value-p.Spread/100), math.Min(1, p.Value+p.Spread/100)
	}
	s := math.Sqrt(math.Log1p(p.Spread * p.Spread / 1e4))
	return p.Value * math.Exp(-s), p.Value * math.Exp(s)
}

// niceTicks returns about n tick values covering [lo, hi] at a round step
// (1, 2, 2.5 or 5 times a power of ten), the first at or below lo and the
// last at or above hi, and the step.
func niceTicks(lo, hi float64, n int) ([]float64, float64) {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		span = math.Max(math.Abs(lo), 1)
	}
	raw := span / float64(max(n-1, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*mag >= raw {
			step = f * mag
			break
		}
	}
	first := math.Floor(lo/step+1e-9) * step
	var out []float64
	for i := 0; i <= 4*n; i++ {
		// Each tick from its index and rounded to the step, so that
		// float drift (0.1+0.2) never shows in a label.
		t := math.Round((first+float64(i)*step)/step) * step
		out = append(out, t)
		if t >= hi-1e-9*step {
			break
		}
	}
	return out, step
}

// tickText formats a tick at the step's precision: percent for ratio
// metrics (a success rate of 1 is "100 %"), else as many decimals as the
// step needs.
func tickText(m MetricReport, v, step float64) string {
	if m.Unit == "ratio" {
		v, step = 100*v, 100*step
	}
	dec := 0
	for d := step; d < 1-1e-9 && dec < 6; d *= 10 {
		dec++
	}
	if math.Abs(step*math.Pow(10, float64(dec))-math.Round(step*math.Pow(10, float64(dec)))) > 1e-6 {
		dec++ // 2.5 x 10^k needs one more
	}
	t := strconv.FormatFloat(v, 'f', dec, 64)
	if m.Unit == "ratio" {
		return t + " %"
	}
	return t
}

func spreadText(m MetricReport, p Level) string {
	if m.Unit == "ratio" {
		return fmt.Sprintf("%.2f points", p.Spread)
	}
	return fmt.Sprintf("%.2f %%", p.Spread)
}

// segmentStart is the first run of the cell's current segment: the run
// after its newest step in any gated metric, or run 1.
func segmentStart(c CellReport) int {
	from := 1
	for _, st := range allSteps(c) {
		if r := c.Sessions[st.Session].Run; r > from {
			from = r
		}
	}
	return from
}

func pt(x, y float64) string {
	return strconv.FormatFloat(round(x), 'f', -1, 64) + "," + strconv.FormatFloat(round(y), 'f', -1, 64)
}

func round(v float64) float64 { return math.Round(v*10) / 10 }
