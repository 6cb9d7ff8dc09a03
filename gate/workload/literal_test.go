package workload

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestIntLiteral(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string // substring of the error; "" for success
	}{
		{"10", 10, ""},
		{"0", 0, ""},
		{"-7", -7, ""},
		{"+5", 5, ""},
		{"1_000", 1000, ""},
		{"010", 0, "leading zero"}, // YAML 1.1: octal 8
		{"-010", 0, "write -10"},
		{"00", 0, "write 0"},
		{"08", 0, "leading zero"}, // YAML: the float 8
		{"0x10", 0, "base prefix"},
		{"0o10", 0, "base prefix"},
		{"0b10", 0, "base prefix"},
		{"1__0", 0, "not a decimal"},
		{"_1", 0, "not a decimal"},
		{"1_", 0, "not a decimal"},
		{"", 0, "empty"},
		{"-", 0, "empty"},
		{"9223372036854775808", 0, "out of range"},
	} {
		got, err := intLiteral(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("intLiteral(%q) = %d, %v; want %d", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("intLiteral(%q) = %d, %v; want an error with %q", c.in, got, err, c.err)
		}
	}
}

func TestFloatLiteral(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  float64
		style bool // refused for its form (leading zero, base prefix)
		bad   bool // not a number at all
	}{
		{in: "0.5", want: 0.5},
		{in: ".5", want: 0.5},
		{in: "1e-3", want: 0.001},
		{in: "2", want: 2},
		{in: "1_000.5", want: 1000.5},
		{in: "-0.25", want: -0.25},
		{in: "010", style: true},
		{in: "00.5", style: true},
		{in: "0x1p4", style: true},
		{in: "1.2.3", bad: true},
	} {
		got, err := floatLiteral(c.in)
		var style *styleError
		switch {
		case c.style && !errors.As(err, &style):
			t.Errorf("floatLiteral(%q) = %v, %v; want a style error", c.in, got, err)
		case c.bad && (err == nil || errors.As(err, &style)):
			t.Errorf("floatLiteral(%q) = %v, %v; want a parse error", c.in, got, err)
		case !c.style && !c.bad && (err != nil || got != c.want):
			t.Errorf("floatLiteral(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// FuzzIntLiteral: intLiteral never panics, and what it accepts is the
// canonical decimal it returns, give or take a '+' and underscores, so no
// literal can mean two different numbers.
func FuzzIntLiteral(f *testing.F) {
	for _, s := range []string{"10", "010", "0x10", "1_000", "-0", "+5", "08", "9223372036854775807", "-9223372036854775808", "1__0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := intLiteral(s)
		if err != nil {
			return
		}
		plain := strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", "")
		if plain == "-0" {
			plain = "0"
		}
		if got := strconv.FormatInt(v, 10); got != plain {
			t.Fatalf("intLiteral(%q) = %d, but the literal reads %q", s, v, plain)
		}
	})
}

// TestArrivalsAtMinRate: the slowest rate the parser accepts, with the
// most requests it accepts, still gives ordered, non-negative offsets (a
// rate of 1e-300 overflowed them into negative durations).
func TestArrivalsAtMinRate(t *testing.T) {
	out := arrivals(1_000_000, MinRate, 1, newStream(1, "arrivals"))
	if out[0] < 0 || out[len(out)-1] != time.Duration(1e9*float64(time.Second)) {
		t.Fatalf("first %v, last %v", out[0], out[len(out)-1])
	}
	for i := 1; i < len(out); i++ {
		if out[i] < out[i-1] {
			t.Fatalf("arrival %d (%v) before %d (%v)", i, out[i], i-1, out[i-1])
		}
	}
}
