package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// The capacity curve of a kind: capacity cell is its search's probes in
// order of load, one row each: the goodput share as a bar from 0 to
// 100 % against the target, and the p99 of the SLO's latency as a bar on
// one scale for both arms (its longest value named in the caption), with
// a row marking the capacity found between the probes around it. The
// chart rules are the list's (docs/report.md): text bars from zero, every
// bar next to its number, no mermaid.

// curveArm is one arm's search to draw: the last trial that has one.
type curveArm struct {
	arm    string
	search *result.Capacity
	trial  int
	all    []float64 // the capacity of every trial, in order
}

// curveCell is a capacity cell's arms and the latency drawn.
type curveCell struct {
	cell    string
	target  float64
	slo     string
	latency string // metric id of the latency column
	label   string
	arms    []curveArm
}

// capacityCells collects the capacity cells of either arm, sorted.
func capacityCells(d *Data) []curveCell {
	names := map[string]bool{}
	for c := range d.Baselines {
		names[c] = true
	}
	for c := range d.Candidates {
		names[c] = true
	}
	var out []curveCell
	for _, name := range slices.Sorted(maps.Keys(names)) {
		cc := curveCell{cell: name}
		for _, a := range []struct {
			arm string
			r   *result.Result
		}{{"baseline", d.Baselines[name]}, {"candidate", d.Candidates[name]}} {
			if a.r == nil {
				continue
			}
			ca := curveArm{arm: a.arm}
			for i := range a.r.Trials {
				if s := a.r.Trials[i].Capacity; s != nil && a.r.Trials[i].Valid {
					ca.search, ca.trial = s, a.r.Trials[i].Index
					ca.all = append(ca.all, s.Capacity)
				}
			}
			if ca.search == nil {
				continue
			}
			if cc.slo == "" {
				cc.target = ca.search.Target
				cc.slo, cc.latency, cc.label = sloText(a.r)
			}
			cc.arms = append(cc.arms, ca)
		}
		if len(cc.arms) > 0 {
			out = append(out, cc)
		}
	}
	return out
}

// sloText describes the cell's SLO and picks the latency to draw: the
// first threshold the SLO sets, TTFT, then E2EL, then TPOT.
func sloText(r *result.Result) (text, latency, label string) {
	s, err := r.Workload.ParseSpec()
	if err != nil {
		return "its SLO", "e2el_ms.p99", "E2EL p99"
	}
	var parts []string
	for _, t := range []struct {
		v          float64
		name, id   string
		shortLabel string
	}{{s.SLO.TTFTms, "TTFT", "ttft_ms.p99", "TTFT p99"}, {s.SLO.E2ELms, "E2EL", "e2el_ms.p99", "E2EL p99"}, {s.SLO.TPOTms, "TPOT", "tpot_ms.p99", "TPOT p99"}} {
		if t.v > 0 {
			parts = append(parts, fmt.Sprintf("%s ≤ %s ms", t.name, Number(t.v)))
			if latency == "" {
				latency, label = t.id, t.shortLabel
			}
		}
	}
	if latency == "" {
		return "its SLO", "e2el_ms.p99", "E2EL p99"
	}
	return strings.Join(parts, ", "), latency, label
}

// curveRow is one row of a curve table.
type curveRow struct {
	arm, load, share, lat, note string
	shareV, latV                float64
	mark                        bool // the capacity row
}

// rows lays out an arm's probes by load, the unlimited probe last, with
// the capacity row inserted after the last probe at or below it.
func (cc curveCell) rows(a curveArm) []curveRow {
	unit := "req/s"
	if a.search.Over == result.OverConcurrency {
		unit = "in flight"
	}
	probes := append([]result.Probe(nil), a.search.Probes...)
	sort.SliceStable(probes, func(i, j int) bool {
		if probes[i].Unlimited != probes[j].Unlimited {
			return !probes[i].Unlimited
		}
		return probes[i].Load < probes[j].Load
	})
	var out []curveRow
	marked := false
	mark := func() {
		iv := Number(a.search.Low) + " to "
		if a.search.High > 0 {
			iv += Number(a.search.High)
		} else {
			iv += "unbounded"
		}
		note := fmt.Sprintf("capacity (binomial interval %s)", iv)
		if !a.search.Converged {
			note += ", not converged"
		}
		out = append(out, curveRow{arm: a.arm, load: Number(a.search.Capacity) + " " + unit, note: note, mark: true})
		marked = true
	}
	for _, p := range probes {
		if !marked && (p.Unlimited || p.Load > a.search.Capacity) {
			mark()
		}
		r := curveRow{arm: a.arm, load: Number(p.Load), shareV: p.Share, latV: math.NaN(),
			share: strconv.FormatFloat(100*p.Share, 'f', 1, 64) + " %"}
		if p.Unlimited {
			r.load = fmt.Sprintf("inf (saturation %s req/s)", Number(p.Throughput))
		}
		if v, ok := p.Latency[cc.latency]; ok {
			r.latV, r.lat = v, Number(v)+" ms"
		}
		switch {
		case p.Pass:
			r.note = "meets"
		case p.Total == 0:
			r.note = "no requests"
		default:
			r.note = "misses"
		}
		if p.Invalid != "" {
			r.note += " (invalid trial)"
		}
		out = append(out, r)
	}
	if !marked {
		mark()
	}
	return out
}

// longest is the largest latency drawn in the cell, the latency bars'
// full scale.
func (cc curveCell) longest() float64 {
	m := 0.0
	for _, a := range cc.arms {
		for _, p := range a.search.Probes {
			if v, ok := p.Latency[cc.latency]; ok && v > m && !math.IsInf(v, 0) {
				m = v
			}
		}
	}
	return m
}

// heading is the cell's one-line summary.
func (cc curveCell) heading() string {
	var parts []string
	for _, a := range cc.arms {
		vals := make([]string, len(a.all))
		for i, v := range a.all {
			vals[i] = Number(v)
		}
		parts = append(parts, fmt.Sprintf("%s %s (trials: %s)", a.arm, Number(a.search.Capacity), strings.Join(vals, ", ")))
	}
	return strings.Join(parts, "; ")
}

// capacityPart is the markdown section of capacity curves and of
// share-of-saturation runs; "" when the comparison has neither.
func capacityPart(d *Data) string {
	var b strings.Builder
	for _, cc := range capacityCells(d) {
		full := cc.longest()
		fmt.Fprintf(&b, "\n**%s**: goodput share ≥ %s under %s. Capacity of the last search: %s.\n\n",
			Escape(cc.cell), strconv.FormatFloat(100*cc.target, 'f', -1, 64)+" %", Escape(cc.slo), cc.heading())
		fmt.Fprintf(&b, "| Arm | Load | Goodput share | %s | |\n|---|--:|:--|:--|---|\n", cc.label)
		for _, a := range cc.arms {
			for _, r := range cc.rows(a) {
				if r.mark {
					fmt.Fprintf(&b, "| %s | **%s** | | | **%s** |\n", r.arm, r.load, r.note)
					continue
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.arm, r.load, barCell(r.shareV, 1, r.share), barCell(r.latV, full, r.lat), r.note)
			}
		}
		fmt.Fprintf(&b, "\nGoodput bars run from 0 to 100 %%; %s bars share one scale, the longest %s ms.\n", cc.label, Number(full))
	}
	b.WriteString(saturationLines(d, Escape))
	if b.Len() == 0 {
		return ""
	}
	return details("Capacity and saturation", b.String())
}

// barCell is a bar and its number, or the number alone when there is
// no bar to draw.
func barCell(v, full float64, text string) string {
	if math.IsNaN(v) || text == "" {
		return text
	}
	if bar := Bar(v, full); bar != "" {
		return "`" + bar + "` " + text
	}
	return text
}

// saturationLines describe the share-of-saturation cells: each arm's
// measured saturation and the rate it ran at, and what share of the
// candidate's saturation the baseline's absolute rate is, so a reader
// sees whether the candidate is overloaded at the baseline's rate. The
// line then says which comparison is which: the cell itself compares
// the arms at their own shares (did the knee move), the cell at the
// baseline's rate compares them at one absolute load (the latency at the
// load production sees).
func saturationLines(d *Data, esc func(string) string) string {
	names := map[string]bool{}
	for c, r := range d.Candidates {
		if r != nil && r.Saturation != nil {
			names[c] = true
		}
	}
	for c, r := range d.Baselines {
		if r != nil && r.Saturation != nil {
			names[c] = true
		}
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(names)) {
		bs, cs := satOf(d.Baselines[name]), satOf(d.Candidates[name])
		var parts []string
		for _, a := range []struct {
			arm string
			s   *result.Saturation
		}{{"baseline", bs}, {"candidate", cs}} {
			if a.s != nil {
				parts = append(parts, fmt.Sprintf("%s saturation %s req/s, ran at %s req/s", a.arm, Number(a.s.ThroughputRPS), Number(a.s.RateRPS)))
			}
		}
		share := bs
		if share == nil {
			share = cs
		}
		line := fmt.Sprintf("\n**%s**: rate %s of saturation: %s.", esc(name), strconv.FormatFloat(100*share.Share, 'f', -1, 64)+" %", strings.Join(parts, "; "))
		if bs != nil && cs != nil && cs.ThroughputRPS > 0 {
			line += fmt.Sprintf(" The baseline's rate is %s of the candidate's saturation.", strconv.FormatFloat(100*bs.RateRPS/cs.ThroughputRPS, 'f', 1, 64)+" %")
		}
		line += atRateLine(d, name, esc)
		b.WriteString(line + "\n")
	}
	return b.String()
}

// atRateLine says how share cell name was compared: at each arm's own
// share, and, when the candidate also ran at the baseline's absolute
// rate, there too; "" when there is no candidate.
func atRateLine(d *Data, name string, esc func(string) string) string {
	if d.Candidates[name] == nil {
		return ""
	}
	own := fmt.Sprintf(" %s compares each arm at its own share of its own saturation (did the knee move)", esc(name))
	at := d.Candidates[result.BaselineRateCell(name)]
	if at == nil || at.BaselineRate == nil {
		return own + "; it was not compared at the baseline's absolute rate (see the warnings)."
	}
	return fmt.Sprintf("%s; %s ran the candidate at the baseline's %s req/s too and compares it with the baseline's trials at that rate (the latency at the load production sees).",
		own, esc(result.BaselineRateCell(name)), Number(at.BaselineRate.RateRPS))
}

func satOf(r *result.Result) *result.Saturation {
	if r == nil {
		return nil
	}
	return r.Saturation
}

// capacityText is the terminal form of capacityPart.
func capacityText(d *Data) string {
	var b strings.Builder
	for _, cc := range capacityCells(d) {
		full := cc.longest()
		fmt.Fprintf(&b, "\nCapacity of %s (goodput share >= %s under %s): %s\n", plain(cc.cell),
			strconv.FormatFloat(100*cc.target, 'f', -1, 64)+" %", cc.slo, cc.heading())
		for _, a := range cc.arms {
			for _, r := range cc.rows(a) {
				if r.mark {
					fmt.Fprintf(&b, "  %-9s  %-28s  <- %s\n", r.arm, r.load, r.note)
					continue
				}
				fmt.Fprintf(&b, "  %-9s  %-28s  %-12s %7s  %-12s %s  %s\n", r.arm, r.load, Bar(r.shareV, 1), r.share, Bar(r.latV, full), r.lat, r.note)
			}
		}
	}
	b.WriteString(strings.ReplaceAll(saturationLines(d, plain), "**", ""))
	return b.String()
}
