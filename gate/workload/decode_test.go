package workload

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValueSyntax checks the scalar forms a workload accepts, through
// Parse of a one-line change to a valid file.
func TestValueSyntax(t *testing.T) {
	const base = "name: v\ndataset: {kind: random, input_tokens: 10, output_tokens: 5}\nload: {requests: 4%s}\n%s"
	for _, c := range []struct {
		load, extra string
		check       func(*File) bool
	}{
		{", rate: inf", "", func(f *File) bool { return math.IsInf(f.Load.Rate[0], 1) }},
		{", rate: .inf", "", func(f *File) bool { return math.IsInf(f.Load.Rate[0], 1) }},
		{", rate: 2.5", "", func(f *File) bool { return f.Load.Rate[0] == 2.5 }},
		{", rate: 1e3", "", func(f *File) bool { return f.Load.Rate[0] == 1000 }},
		{", burstiness: inf", "", func(f *File) bool { return math.IsInf(f.Load.Burstiness, 1) }},
		{", burstiness: 0.5", "", func(f *File) bool { return f.Load.Burstiness == 0.5 }},
		{", concurrency: [0, 8]", "", func(f *File) bool { return len(f.Load.Concurrency) == 2 }},
		{"", "timeout: 90s\n", func(f *File) bool { return f.Timeout.Seconds() == 90 }},
		{"", "timeout: 1h30m\n", func(f *File) bool { return f.Timeout.Minutes() == 90 }},
		{"", "gate: [{metric: output_throughput, tolerance: 2.5%}]\n", func(f *File) bool { return f.Gate[0].Tolerance == 0.025 }},
		{"", "gate: [{metric: goodput_ratio, tolerance: 0.5 pp}]\n", func(f *File) bool { return f.Gate[0].Tolerance == 0.005 }},
		{"", "gate: [{metric: e2el_ms.p99.9, tolerance: 100%}]\n", func(f *File) bool { return f.Gate[0].Tolerance == 1 }},
		// A bare fraction, perfgate.yaml's form, means the same here.
		{"", "gate: [{metric: output_throughput, tolerance: 0.025}]\n", func(f *File) bool { return f.Gate[0].Tolerance == 0.025 }},
		{"", "gate: [{metric: goodput_ratio, tolerance: 0.005}]\n", func(f *File) bool { return f.Gate[0].Tolerance == 0.005 }},
		{"", "warmups: 0\n", func(f *File) bool { return f.Warmups == 0 }},
		{"", "", func(f *File) bool {
			return f.Warmups == 4 && f.Trials == TrialBudget{Min: 5, Max: 10} && f.Load.Concurrency[0] == 0
		}},
		{"", "trials: {min: 12}\n", func(f *File) bool { return f.Trials == TrialBudget{Min: 12, Max: 12} }},
		{"", "description: 2024\nmodel: 7\n", func(f *File) bool { return f.Description == "2024" && f.Model == "7" }},
	} {
		src := strings.Replace(strings.Replace(base, "%s", c.load, 1), "%s", c.extra, 1)
		f, err := Parse("v.yaml", []byte(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if !c.check(f) {
			t.Errorf("%q: decoded %+v", src, f)
		}
	}
	for _, bad := range []string{
		"gate: [{metric: goodput_ratio, tolerance: 150pp}]\n",
		"gate: [{metric: tpot_ms.p50, tolerance: 0%}]\n",
		"gate: [{metric: tpot_ms.p50, tolerance: \"3 percent\"}]\n",
		"timeout: 0s\n",
	} {
		src := strings.Replace(strings.Replace(base, "%s", "", 1), "%s", bad, 1)
		if _, err := Parse("v.yaml", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), "v.yaml:4: ") {
			t.Errorf("%q: err = %v, want v.yaml:4: ...", bad, err)
		}
	}
}

func TestFilesListing(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.yaml", "a.yml", "sub/c.yaml", ".hidden/d.yaml", "e.txt"} {
		write(t, dir, f, "x")
	}
	got, err := Files([]string{dir, filepath.Join(dir, "b.yaml"), dir})
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, g := range got {
		r, _ := filepath.Rel(dir, g)
		rel = append(rel, r)
	}
	if strings.Join(rel, ",") != "a.yml,b.yaml,sub/c.yaml" {
		t.Errorf("files = %v", rel)
	}
	got, err = Files([]string{filepath.Join(dir, "*.y*ml"), filepath.Join(dir, "s?b")})
	if err != nil || len(got) != 3 || filepath.Base(got[0]) != "a.yml" || filepath.Base(got[2]) != "c.yaml" {
		t.Errorf("globs: %v, %v", got, err)
	}
	if _, err := Files([]string{filepath.Join(dir, "*.json")}); err == nil || !strings.Contains(err.Error(), "*.json: the pattern matches no file") {
		t.Errorf("glob without matches: %v", err)
	}
	empty := t.TempDir()
	os.Mkdir(filepath.Join(empty, "x"), 0o755)
	if _, err := Files([]string{empty}); err == nil || !strings.Contains(err.Error(), "no *.yaml or *.yml workload files") {
		t.Errorf("empty directory: %v", err)
	}
}
