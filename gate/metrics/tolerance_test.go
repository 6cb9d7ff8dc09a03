package metrics

import (
	"strings"
	"testing"
)

func TestParseTolerance(t *testing.T) {
	for _, c := range []struct {
		in    string
		ratio bool
		want  float64
		err   string // substring of the error; "" for success
	}{
		{"3%", false, 0.03, ""},
		{"0.03", false, 0.03, ""}, // perfgate.yaml's historical form
		{" 2.5 % ", false, 0.025, ""},
		{"100%", false, 1, ""},
		{".5", false, 0.5, ""},
		{"0.5pp", true, 0.005, ""},
		{"0.005", true, 0.005, ""},
		{"3", false, 0, "could mean 3 % or 300 %; write 3%"},
		{"1", true, 0, "write 1pp"},
		{"3%", true, 0, "the metric is a ratio"},
		{"1pp", false, 0, "percentage points are for ratio metrics"},
		{"0", false, 0, "above 0"},
		{"0%", false, 0, "above 0"},
		{"150%", false, 0, "at most 100 %"},
		{"-3%", false, 0, "not a tolerance"},
		{"3 percent", false, 0, "not a tolerance"},
		{"", true, 0, "not a tolerance"},
	} {
		got, err := ParseTolerance(c.in, c.ratio)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseTolerance(%q, %v) = %v, %v; want %v", c.in, c.ratio, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseTolerance(%q, %v) = %v, %v; want an error with %q", c.in, c.ratio, got, err, c.err)
		}
	}
}

// FuzzParseTolerance: never panics, and every accepted tolerance is a
// fraction in (0, 1].
func FuzzParseTolerance(f *testing.F) {
	for _, s := range []string{"3%", "0.03", "0.5pp", "3", "100%", ".5", "1e3%", "0x1%"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, ratio bool) {
		v, err := ParseTolerance(s, ratio)
		if err == nil && !(v > 0 && v <= 1) {
			t.Fatalf("ParseTolerance(%q, %v) = %v, outside (0, 1]", s, ratio, v)
		}
	})
}
