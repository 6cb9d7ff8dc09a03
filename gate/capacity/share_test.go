package capacity

import (
	"strings"
	"testing"
)

func TestParseShare(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string // substring of the error, "" for success
	}{
		{"80%-of-saturation", 0.8, ""},
		{"100%-of-saturation", 1, ""},
		{"12.5%-of-saturation", 0.125, ""},
		{"0%-of-saturation", 0, "above 0"},
		{"120%-of-saturation", 0, "at most 100"},
		{"-5%-of-saturation", 0, "written like"},
		{"80 %-of-saturation", 0, "written like"},
		{"80%", 0, "written like"},
		{"1e3%-of-saturation", 0, "written like"},
	} {
		got, err := ParseShare(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.err)
		case c.err == "" && got != c.want:
			t.Errorf("%q = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzParseShare checks that every accepted share is in (0, 1] and reads
// back from its own formatting.
func FuzzParseShare(f *testing.F) {
	for _, s := range []string{"80%-of-saturation", "100%-of-saturation", "0.5%-of-saturation", "%-of-saturation", "99.999999%-of-saturation"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseShare(s)
		if err != nil {
			return
		}
		if !(v > 0 && v <= 1) {
			t.Fatalf("%q parsed to %v, outside (0, 1]", s, v)
		}
		if !IsShareOfSaturation(s) {
			t.Fatalf("%q parsed but IsShareOfSaturation is false", s)
		}
		back, err := ParseShare(FormatShare(v))
		if err != nil || back != v {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, v, FormatShare(v), back, err)
		}
	})
}
