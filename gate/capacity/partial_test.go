package capacity

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSearchKeepsProbesOnError is issue 20 item 5: an interrupted or
// failed search returned nothing, so the result said `trials: []` and
// the probes it ran were lost. Search returns the probes so far with the
// error, and says where it stopped.
func TestSearchKeepsProbesOnError(t *testing.T) {
	for _, tt := range []struct {
		name string
		fail func(ctx context.Context, cancel context.CancelFunc, n int) error
		want error
	}{
		{"server gone at the third probe", func(_ context.Context, _ context.CancelFunc, n int) error {
			if n == 3 {
				return errors.New("connection refused")
			}
			return nil
		}, nil},
		{"interrupted after the third probe", func(_ context.Context, cancel context.CancelFunc, n int) error {
			if n == 3 {
				cancel()
			}
			return nil
		}, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &curve{share: cliff(28, 5), sat: 40, n: 200}
			n := 0
			p := ProberFunc(func(ctx context.Context, x float64) (Measurement, error) {
				n++
				if err := tt.fail(ctx, cancel, n); err != nil {
					return Measurement{}, err
				}
				return c.Probe(ctx, x)
			})
			got, err := Search(ctx, p, Spec{})
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err %v", err)
			}
			want := 2
			if tt.want != nil {
				want = 3
			}
			if got == nil || len(got.Probes) != want || !got.Probes[0].Unlimited || got.Converged {
				t.Fatalf("got %+v, want the %d probes that ran", got, want)
			}
			if w := strings.Join(got.Warnings, "\n"); !strings.Contains(w, "the search stopped after") {
				t.Errorf("warnings %q", w)
			}
		})
	}
}

// TestSearchAllRequestsFail: a server that answers every request with
// HTTP 500 is ErrNothingServed, naming the errors, not a complete result.
func TestSearchAllRequestsFail(t *testing.T) {
	p := ProberFunc(func(context.Context, float64) (Measurement, error) {
		return Measurement{Total: 200, Errors: map[string]int{"http 500": 198, "timeout": 2}, Invalid: "every request failed"}, nil
	})
	got, err := Search(context.Background(), p, Spec{})
	if !errors.Is(err, ErrNothingServed) || !strings.Contains(err.Error(), "198 x http 500, 2 x timeout") {
		t.Fatalf("err %v", err)
	}
	if len(got.Probes) != 1 || got.Probes[0].Total != 200 {
		t.Errorf("probes %+v", got.Probes)
	}
}

// TestSearchNeverMeetingTheSLOIsBounded: a server that never meets the
// SLO made the bisection halve the rate towards 0, every probe twice as
// long as the last (110-120 s a search). The search's time is bounded by
// MaxTimeFactor times the saturation probe's, whatever MaxProbes allows,
// and it says why it stopped.
func TestSearchNeverMeetingTheSLOIsBounded(t *testing.T) {
	for _, durations := range []bool{false, true} {
		c := &curve{share: func(float64) float64 { return 0.3 }, sat: 40, n: 200}
		spent := 0.0
		p := ProberFunc(func(ctx context.Context, x float64) (Measurement, error) {
			m, err := c.Probe(ctx, x)
			d := float64(c.n) / math.Min(x, c.sat) // n requests at the rate
			if durations {
				m.DurationS = d * 1.1 // measured: a little over the schedule
			}
			spent += d
			return m, err
		})
		got, err := Search(context.Background(), p, Spec{MaxProbes: 50})
		if err != nil {
			t.Fatal(err)
		}
		satS := float64(c.n) / c.sat
		if spent > MaxTimeFactor*satS || len(got.Probes) > 7 {
			t.Errorf("durations %v: %d probes took %.0f s, %.1f times the saturation probe's %.0f s (bound %d)",
				durations, len(got.Probes), spent, spent/satS, satS, MaxTimeFactor)
		}
		w := strings.Join(got.Warnings, "\n")
		if got.Capacity != 0 || got.Converged || !strings.Contains(w, "past the search's time bound") || !strings.Contains(w, "not met at any load") {
			t.Errorf("durations %v: capacity %v converged %v warnings %q", durations, got.Capacity, got.Converged, w)
		}
	}
}
