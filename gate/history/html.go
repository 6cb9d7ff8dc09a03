package history

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// HTML writes r as one self-contained HTML page: inline CSS, and per cell
// and gated metric an inline SVG line chart of the run centres with their
// within-session spread as a band, the detected steps as vertical lines
// captioned with their commit, and the current segment shaded. It loads
// nothing (no script, stylesheet, font or image URL), so it works as a CI
// artifact opened from disk and as a GitHub Pages page. Every string from
// the history files goes through html/template's contextual escaping.
func HTML(w io.Writer, r *Report) error {
	return page.Execute(w, newHTMLPage(r))
}

type htmlPage struct {
	Profile, Method string
	// Overview has one row per cell with a step, linking to its section.
	Overview []htmlOverview
	Steps    []htmlStep
	Groups   []htmlGroup
}

// htmlOverview is one cell with steps: its anchor and what stepped where.
type htmlOverview struct {
	Anchor, Cell, Steps string
}

type htmlStep struct {
	Cell, Anchor, Metric, Run, Date, Commit, Change, Interval string
}

// htmlGroup is one workload's cells (a cell "chat@c16" belongs to workload
// "chat"), so a profile of many cells reads as a few headed groups.
type htmlGroup struct {
	Workload string
	Cells    []htmlCell
}

type htmlCell struct {
	Anchor, Name, Runs string
	Noise              []string
	Charts             []chart
}

// workloadOf is the workload part of a cell name: before its "@".
func workloadOf(cell string) string {
	if i := strings.IndexByte(cell, '@'); i > 0 {
		return cell[:i]
	}
	return cell
}

func newHTMLPage(r *Report) htmlPage {
	p := htmlPage{Profile: r.Profile, Method: method(r.Detector)}
	group := map[string]int{}
	for i, c := range r.Cells {
		anchor := "cell-" + strconv.Itoa(i+1)
		var parts []string
		for _, st := range allSteps(c) {
			s := c.Sessions[st.Session]
			p.Steps = append(p.Steps, htmlStep{Cell: c.Cell, Anchor: anchor, Metric: st.label, Run: strconv.Itoa(s.Run), Date: day(s.Date),
				Commit: commitName(s.Commit), Change: signed(st.Change, st.Absolute), Interval: interval(st.Step)})
			parts = append(parts, fmt.Sprintf("%s %s at run %d", st.label, signed(st.Change, st.Absolute), s.Run))
		}
		if len(parts) > 0 {
			p.Overview = append(p.Overview, htmlOverview{Anchor: anchor, Cell: c.Cell, Steps: strings.Join(parts, "; ")})
		}
		hc := htmlCell{Anchor: anchor, Name: c.Cell, Runs: runs(c)}
		from := segmentStart(c)
		for _, m := range c.Metrics {
			if m.Noise != nil {
				hc.Noise = append(hc.Noise, noiseLine(m))
			}
			if len(m.Points) > 0 {
				hc.Charts = append(hc.Charts, newChart(c, m, from))
			}
		}
		w := workloadOf(c.Cell)
		k, ok := group[w]
		if !ok {
			k = len(p.Groups)
			group[w] = k
			p.Groups = append(p.Groups, htmlGroup{Workload: w})
		}
		p.Groups[k].Cells = append(p.Groups[k].Cells, hc)
	}
	return p
}

// page is well-formed XML as well as HTML5 (void elements self-closed), so
// the tests can parse it with encoding/xml.
var page = template.Must(template.New("history").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>perfgate history · {{.Profile}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; color: #1f2328; margin: 2em auto; max-width: 1500px; padding: 0 1em; }
.charts { display: flex; flex-wrap: wrap; gap: 0 16px; }
.charts figure { flex: 0 1 720px; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; }
code { font: 12px ui-monospace, monospace; }
figure { margin: 1.5em 0; }
figcaption { font-weight: 600; }
svg { max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #57606a; }
svg .axis { stroke: #8c959f; }
svg .grid { stroke: #eaeef2; }
svg .band { fill: #54aeff; fill-opacity: 0.25; stroke: none; }
svg .line { fill: none; stroke: #0969da; stroke-width: 2; }
svg .dot { fill: #0969da; }
svg .seg { fill: #2da44e; fill-opacity: 0.08; }
svg .step { stroke: #cf222e; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg text.steplabel { fill: #cf222e; }
svg text.seglabel { fill: #1a7f37; }
</style>
</head>
<body>
<h1>perfgate history · {{.Profile}}</h1>
<p>Change points: {{.Method}}.</p>
{{if .Overview}}<h2>Overview</h2>
<table>
<tr><th>Workload cell</th><th>Steps</th></tr>
{{range .Overview}}<tr><td><a href="#{{.Anchor}}">{{.Cell}}</a></td><td>{{.Steps}}</td></tr>
{{end}}</table>
<details><summary>every step with its commit and interval</summary>
<table>
<tr><th>Workload</th><th>Metric</th><th>First run after the step</th><th>Change</th><th>95 % interval</th></tr>
{{range .Steps}}<tr><td><a href="#{{.Anchor}}">{{.Cell}}</a></td><td>{{.Metric}}</td><td>run {{.Run}}, {{.Date}}, <code>{{.Commit}}</code></td><td>{{.Change}}</td><td>{{.Interval}}</td></tr>
{{end}}</table>
</details>
{{else}}<p>No step detected in any gated metric.</p>
{{end}}<p>Each chart shows one session per run: the line joins the session levels (geometric mean of its trials; the mean for ratio metrics, in percent), the blue band is the within-session spread on the log scale (the level times and divided by e^s, s the log-scale SD of the trials; ± SD for ratio metrics), a dashed red line marks a detected step at its first run, and the green shade is the current segment the gate takes its baseline and noise from.</p>
{{range .Groups}}<section>
<h2>{{.Workload}}</h2>
{{range .Cells}}<section id="{{.Anchor}}">
<h3>{{.Name}}</h3>
<p>{{.Runs}}</p>
{{if .Noise}}<ul>
{{range .Noise}}<li>noise: {{.}}</li>
{{end}}</ul>
{{end}}<div class="charts">
{{range .Charts}}<figure>
<figcaption>{{.Title}}</figcaption>
<svg viewBox="0 0 {{.W}} {{.H}}" width="{{.W}}" height="{{.H}}" role="img">
<title>{{.Title}}: {{.SegLabel}}</title>
<rect class="seg" x="{{.SegX}}" y="{{.Top}}" width="{{.SegW}}" height="{{.PlotH}}"/>
<text class="seglabel" x="{{.SegLabelX}}" y="{{.SegLabelY}}" text-anchor="end">{{.SegLabel}}</text>
{{$c := .}}{{range .YTicks}}<line class="grid" x1="{{$c.Left}}" x2="{{$c.Right}}" y1="{{.At}}" y2="{{.At}}"/>
<text x="{{$c.TickX}}" y="{{.At}}" text-anchor="end" dominant-baseline="middle">{{.Text}}</text>
{{end}}{{range .XTicks}}<text x="{{.At}}" y="{{$c.XTickY}}" text-anchor="middle">{{.Text}}</text>
{{end}}<line class="axis" x1="{{.Left}}" x2="{{.Right}}" y1="{{.Bot}}" y2="{{.Bot}}"/>
<line class="axis" x1="{{.Left}}" x2="{{.Left}}" y1="{{.Top}}" y2="{{.Bot}}"/>
<text x="{{.MidX}}" y="{{.XLabelY}}" text-anchor="middle">{{.XLabel}}</text>
<text x="14" y="{{.MidY}}" text-anchor="middle" transform="rotate(-90 14 {{.MidY}})">{{.YLabel}}</text>
<polygon class="band" points="{{.Band}}"/>
<polyline class="line" points="{{.Line}}"/>
{{range .Dots}}<circle class="dot" cx="{{.X}}" cy="{{.Y}}" r="3"><title>{{.Title}}</title></circle>
{{end}}{{range .Steps}}<line class="step" x1="{{.X}}" x2="{{.X}}" y1="{{$c.Top}}" y2="{{$c.Bot}}"/>
<text class="steplabel" x="{{.X}}" y="{{$c.StepLabelY}}" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{end}}</svg>
</figure>
{{end}}</div>
</section>
{{end}}</section>
{{end}}</body>
</html>
`))
