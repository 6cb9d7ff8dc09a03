package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestTokenCountingFact: the facts table names how each arm counted its
// chunks' tokens, says when itl_token_ms is approximated, and leaves the
// row out for results that recorded nothing (older or imported ones).
func TestTokenCountingFact(t *testing.T) {
	d := loadFixture(t, "regression")
	var b bytes.Buffer
	if err := Markdown(&b, d, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Token counting") {
		t.Error("row shown for results without token counting")
	}
	for _, r := range d.Candidates {
		for i := range r.Trials {
			r.Trials[i].Tokens = &result.TokenCounting{Method: "even_split", TokensPerChunk: 3.4, ITLTokenApprox: true}
		}
	}
	for _, r := range d.Baselines {
		for i := range r.Trials {
			r.Trials[i].Tokens = &result.TokenCounting{Method: "usage_cumulative", TokensPerChunk: 1}
		}
	}
	b.Reset()
	if err := Markdown(&b, d, 0); err != nil {
		t.Fatal(err)
	}
	want := `| Token counting | usage\_cumulative, 1.0 tokens per chunk | even\_split (itl\_token\_ms approximated), 3.4 tokens per chunk |`
	if !strings.Contains(b.String(), want) {
		t.Errorf("no row %s in:\n%s", want, b.String())
	}
}

// TestQuotedServerErrorEscaped: an invalid reason quoting a server's 4xx
// message (gate/metrics) reaches the comment escaped: a message made of
// markdown and HTML cannot break the table, load an image or mention
// anyone.
func TestQuotedServerErrorEscaped(t *testing.T) {
	d := loadFixture(t, "invalid")
	reason := `every request failed (http_400: 4: "<img src=x> | **bold** @team [x](http://evil)")`
	d.Comparison.Workloads[0].Excluded = append(d.Comparison.Workloads[0].Excluded, verdict.Excluded{Arm: "candidate", Trial: 9, Reason: reason})
	var b bytes.Buffer
	if err := Markdown(&b, d, 0); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"<img", "| **bold**", "@team", "[x](http"} {
		if strings.Contains(md, bad) {
			t.Errorf("unescaped %q", bad)
		}
	}
	if !strings.Contains(md, `http\_400: 4: "&lt;img src=x&gt; \| \*\*bold\*\* &#64;team \[x\](http://evil)"`) {
		t.Errorf("quote missing or escaped otherwise:\n%s", md)
	}
}
