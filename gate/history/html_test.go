package history

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// parsePage decodes the page as strict XML (it is written so that it is)
// and returns every start element; it fails the test on a syntax error.
func parsePage(t *testing.T, page []byte) []xml.StartElement {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var els []xml.StartElement
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return els
		}
		if err != nil {
			t.Fatalf("page does not parse: %v\n%s", err, page)
		}
		if se, ok := tok.(xml.StartElement); ok {
			els = append(els, se.Copy())
		}
	}
}

func renderHTML(t *testing.T, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHTMLSelfContained checks the page's structure: one SVG per cell and
// metric with a series, one dashed step line per detected step, a dot per
// session, and nothing that loads from anywhere (no script, link, img,
// src, href, or an http URL anywhere in the markup).
func TestHTMLSelfContained(t *testing.T) {
	r := goldenReport()
	page := renderHTML(t, r)
	wantSVG, wantSteps, wantDots := 0, 0, 0
	for _, c := range r.Cells {
		for _, m := range c.Metrics {
			wantSVG++
			wantSteps += len(m.Steps)
			wantDots += len(m.Points)
		}
	}
	svg, steps, dots := 0, 0, 0
	for _, el := range parsePage(t, page) {
		switch el.Name.Local {
		case "script", "link", "img", "iframe", "object", "embed", "image", "use", "foreignObject":
			t.Errorf("page has a <%s> element", el.Name.Local)
		case "svg":
			svg++
		case "circle":
			dots++
		case "line":
			for _, a := range el.Attr {
				if a.Name.Local == "class" && a.Value == "step" {
					steps++
				}
			}
		}
		for _, a := range el.Attr {
			n := strings.ToLower(a.Name.Local)
			if n == "href" && strings.HasPrefix(a.Value, "#") {
				continue // a link to a section of the page itself loads nothing
			}
			if n == "src" || n == "href" || strings.HasPrefix(n, "on") {
				t.Errorf("<%s> has attribute %s=%q", el.Name.Local, a.Name.Local, a.Value)
			}
		}
	}
	if svg != wantSVG || steps != wantSteps || dots != wantDots {
		t.Errorf("page has %d charts, %d step lines, %d dots; want %d, %d, %d", svg, steps, dots, wantSVG, wantSteps, wantDots)
	}
	if wantSteps == 0 {
		t.Fatal("golden history has no step: the step check proves nothing")
	}
	if bytes.Contains(bytes.ToLower(page), []byte("http")) {
		t.Error("page mentions http: it must load nothing")
	}
}

// TestHTMLEscapesHostileNames renders a cell named with markup and a URL:
// the page must still parse, hold no script element, and show the name
// only as escaped text.
func TestHTMLEscapesHostileNames(t *testing.T) {
	r := goldenReport()
	const name = `<script>fetch("https://evil.example/x")</script><img src=x onerror=alert(1)>`
	r.Cells[1].Cell = name
	r.Profile = `"><svg onload=alert(1)>`
	page := renderHTML(t, r)
	for _, el := range parsePage(t, page) {
		if el.Name.Local == "script" || el.Name.Local == "img" {
			t.Errorf("hostile name became a <%s> element", el.Name.Local)
		}
		for _, a := range el.Attr {
			if strings.HasPrefix(a.Name.Local, "on") {
				t.Errorf("hostile name became an attribute %s", a.Name.Local)
			}
		}
	}
	if bytes.Contains(page, []byte("<script")) || bytes.Contains(page, []byte("<img")) {
		t.Errorf("raw markup from a cell name in the page:\n%s", page)
	}
	if !bytes.Contains(page, []byte("&lt;script&gt;")) {
		t.Error("the hostile name is not shown as escaped text")
	}
}

// TestChartGeometry pins the layout rules a reader relies on: the newest
// run is at the right edge, a higher level is drawn higher, the band
// encloses the line, and the shade starts half a run before the step.
func TestChartGeometry(t *testing.T) {
	r := goldenReport()
	c := r.Cells[0]
	m := c.Metrics[0] // TPOT p50, stepped up at run 7
	ch := newChart(c, m, segmentStart(c))
	first, last := ch.Dots[0], ch.Dots[len(ch.Dots)-1]
	if first.X != ch.Left || last.X != ch.Right {
		t.Errorf("dots span x %v..%v, want the plot %v..%v", first.X, last.X, ch.Left, ch.Right)
	}
	if !(last.Y < first.Y) {
		t.Errorf("TPOT rose 10 %% but the newest dot (y %v) is not above the first (y %v)", last.Y, first.Y)
	}
	band := strings.Fields(ch.Band) // upper edge left to right, then lower edge right to left
	if len(band) != 2*len(ch.Dots) {
		t.Fatalf("band has %d points for %d dots", len(band), len(ch.Dots))
	}
	for i, d := range ch.Dots {
		if d.Y < ch.Top || d.Y > ch.Bot {
			t.Errorf("dot y %v outside the plot %v..%v", d.Y, ch.Top, ch.Bot)
		}
		var ux, uy, lx, ly float64
		fmt.Sscanf(band[i], "%g,%g", &ux, &uy)
		fmt.Sscanf(band[len(band)-1-i], "%g,%g", &lx, &ly)
		if ux != d.X || lx != d.X || !(uy <= d.Y && d.Y <= ly) {
			t.Errorf("run %d: band (%v,%v)..(%v,%v) does not enclose the dot (%v,%v)", i+1, ux, uy, lx, ly, d.X, d.Y)
		}
	}
	if len(ch.Steps) != 1 || !strings.Contains(ch.Steps[0].Label, "run 7") || !strings.Contains(ch.Steps[0].Label, "0a00006") {
		t.Fatalf("steps %+v, want one at run 7, commit 0a00006", ch.Steps)
	}
	runW := (ch.Right - ch.Left) / float64(len(c.Sessions)-1)
	if want := round(ch.Steps[0].X - runW/2); ch.SegX != want || round(ch.SegX+ch.SegW) != ch.Right {
		t.Errorf("segment shade %v+%v, want from %v to the right edge %v", ch.SegX, ch.SegW, want, ch.Right)
	}
	if ch.YLabel != "TPOT p50 (ms)" {
		t.Errorf("y label %q, want the unit", ch.YLabel)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0.9944, 1.0512, "0.98 1 1.02 1.04 1.06"},
		{17.2, 24.9, "16 18 20 22 24 26"},
		{0, 1, "0 0.25 0.5 0.75 1"},
		{1900, 2100, "1900 1950 2000 2050 2100"},
	} {
		ticks, _ := niceTicks(tc.lo, tc.hi, yTicks)
		if got := strings.Trim(fmt.Sprint(ticks), "[]"); got != tc.want {
			t.Errorf("niceTicks(%v, %v) = %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
	ratio := MetricReport{Unit: "ratio"}
	if got := tickText(ratio, 1, 0.25); got != "100 %" {
		t.Errorf("ratio tick %q, want 100 %%", got)
	}
	if got := tickText(MetricReport{Unit: "ms"}, 0.975, 0.025); got != "0.975" {
		t.Errorf("tick %q", got)
	}
}

// TestBandsNeverBelowZero: a spread CV of 150 % (the page drew
// -21.47 ms) gives a band on the log scale, above zero, as wide in ratio
// above the centre as below.
func TestBandsNeverBelowZero(t *testing.T) {
	m := MetricReport{Unit: "ms"}
	lo, hi := spreadBounds(m, Level{Value: 40, Spread: 150})
	if lo <= 0 || math.Abs(40/lo-hi/40) > 1e-9 {
		t.Errorf("band %v..%v around 40", lo, hi)
	}
	if lo, hi := spreadBounds(MetricReport{Unit: "ratio"}, Level{Value: 0.99, Spread: 5}); lo < 0 || hi > 1 {
		t.Errorf("ratio band %v..%v outside [0, 1]", lo, hi)
	}
}

// TestHTMLOverviewAndGroups: the page opens with an overview of the cells
// that stepped, one row each, linking to the cell's section; sections are
// grouped under their workload ("chat@c16" under "chat").
func TestHTMLOverviewAndGroups(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, goldenReport()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	over := strings.Index(page, "<h2>Overview</h2>")
	row := strings.Index(page, `<a href="#cell-1">chat@c16</a>`)
	group := strings.Index(page, "<h2>chat</h2>")
	sect := strings.Index(page, `<section id="cell-1">`)
	if over < 0 || row < over || group < row || sect < group {
		t.Errorf("overview at %d, its row at %d, workload heading at %d, cell section at %d: want them in that order", over, row, group, sect)
	}
	if n := strings.Count(page, "<tr><td><a href=\"#cell-"); n < 1 {
		t.Errorf("overview rows: %d", n)
	}
}
