package history

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenReport is a 12-night history whose TPOT rose 10 % (and throughput
// fell) from night 7, plus a second, quiet cell.
func goldenReport() *Report {
	rng := rand.New(rand.NewPCG(9, 9))
	step := nightly(rng, 12, 5, 0.005, 0.01, func(i int) float64 {
		if i >= 6 {
			return math.Log1p(0.10)
		}
		return 0
	})
	quiet := nightly(rng, 4, 3, 0.005, 0.01, flat)
	quiet[0].GitSHA = ""
	cells := []*Cell{FromLines("chat@c16", step), FromLines("long|<b>", quiet)}
	return Build("h100", cells, []string{"tpot_ms.p50", "output_throughput", "success_rate", "ttft_ms.p99"}, DefaultDetector())
}

func TestRenderGolden(t *testing.T) {
	r := goldenReport()
	if n := len(r.Cells[0].Metrics[0].Steps); n != 1 {
		t.Fatalf("golden history: %d TPOT steps, want 1", n)
	}
	for _, tc := range []struct {
		file   string
		render func(*bytes.Buffer, *Report) error
	}{
		{"history.txt", func(b *bytes.Buffer, r *Report) error { return Text(b, r) }},
		{"history.md", func(b *bytes.Buffer, r *Report) error { return Markdown(b, r) }},
		{"history.csv", func(b *bytes.Buffer, r *Report) error { return CSV(b, r) }},
		{"history.json", func(b *bytes.Buffer, r *Report) error { return JSON(b, r) }},
		{"history.html", func(b *bytes.Buffer, r *Report) error { return HTML(b, r) }},
	} {
		var b bytes.Buffer
		if err := tc.render(&b, r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.file)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file (go test ./gate/history -run TestRenderGolden -update):\n%s", tc.file, b.String())
		}
	}
}

func TestMarkdownEscapesNames(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, goldenReport()); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("<b>")) || bytes.Contains(b.Bytes(), []byte("long|")) {
		t.Errorf("cell name not escaped:\n%s", b.String())
	}
}
