package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
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
