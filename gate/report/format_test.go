package report

import (
	"math"
	"testing"
)

func TestPercent(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{7.9, "+7.9 %"},
		{-3.12, "-3.1 %"},
		{0, "±0.0 %"},
		{0.04, "+0.04 %"},  // tiny but real: one more decimal
		{-0.04, "-0.04 %"}, // same on the other side
		{0.001, "±0.00 %"}, // rounds to zero even with two decimals
		{150, "+150.0 %"},
		{math.NaN(), "n/a"},
		{math.Inf(1), "+∞ %"},
		// Huge finite changes (from values near the float64 limit) are
		// short, not 309 digits.
		{4.6e305, "+4.6e+305 %"},
		{-2.5e6, "-2.5e+06 %"},
		{999999, "+999999.0 %"},
	}
	for _, tt := range tests {
		if got := Percent(tt.in); got != tt.want {
			t.Errorf("Percent(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRange(t *testing.T) {
	if got, want := Range(6.1, 9.8), "+6.1 to +9.8 %"; got != want {
		t.Errorf("Range = %q, want %q", got, want)
	}
	if got, want := PointsRange(-1.2, 0.3), "-1.2 to +0.3 pp"; got != want {
		t.Errorf("PointsRange = %q, want %q", got, want)
	}
	if got := Range(math.NaN(), 1); got != "n/a" {
		t.Errorf("Range(NaN) = %q", got)
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		v    float64
		unit string
		want string
	}{
		{123.456, "ms", "123.5 ms"},
		{12.345, "ms", "12.35 ms"}, // binary 12.345 is just below the tie
		{1.2345, "ms", "1.234 ms"},
		{1234.5, "tok/s", "1,234 tok/s"}, // round half to even
		{1234567, "tok/min", "1,234,567 tok/min"},
		{0.995, "ratio", "99.50 %"},
		{64, "count", "64"},
		{12000, "count", "12,000"},
		{0, "ms", "0 ms"},
		{0.00012, "s", "0.00012 s"},
		{math.NaN(), "ms", "n/a ms"},
		{-1500, "", "-1,500"},
		{1.7e308, "ms", "1.7e+308 ms"},
		{3e18, "count", "3e+18"},
		{999999999999999, "tok/s", "999,999,999,999,999 tok/s"},
	}
	for _, tt := range tests {
		if got := Value(tt.v, tt.unit); got != tt.want {
			t.Errorf("Value(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

// TestDuration: a sub-second block (the simulator's) is not printed as
// "0 s", and the longer units keep their rounding.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0.41, "0.41 s"}, {5.26, "5.3 s"}, {42, "42 s"}, {150, "2 min"}, {7200, "2.0 h"},
	} {
		if got := Duration(c.s); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}
