package capacity

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// curve is a synthetic server: share(load) is the true goodput share at a
// load, sat its throughput at an unlimited rate. Probes of n requests
// return the share rounded to whole requests, with no noise, so each
// case's capacity is known exactly: the load where share crosses the
// target.
type curve struct {
	share func(x float64) float64
	sat   float64
	n     int
	loads []float64 // every probe, in order
}

func (c *curve) Probe(_ context.Context, x float64) (Measurement, error) {
	c.loads = append(c.loads, x)
	if math.IsInf(x, 1) {
		return Measurement{Good: 0, Total: c.n, Throughput: c.sat}, nil
	}
	good := int(math.Round(c.share(x) * float64(c.n)))
	return Measurement{Good: good, Total: c.n, Throughput: math.Min(x, c.sat), Latency: map[string]float64{"ttft_ms.p99": 10 * x}}, nil
}

// cliff is 1 up to knee, then falls linearly to 0 over width.
func cliff(knee, width float64) func(float64) float64 {
	return func(x float64) float64 {
		return math.Max(0, math.Min(1, 1-(x-knee)/width))
	}
}

// logistic falls smoothly through 1/2 at mid.
func logistic(mid, scale float64) func(float64) float64 {
	return func(x float64) float64 { return 1 / (1 + math.Exp((x-mid)/scale)) }
}

func TestSearchFindsTheCrossing(t *testing.T) {
	for _, c := range []struct {
		name  string
		curve *curve
		spec  Spec
		want  float64 // true capacity
		tol   float64 // relative
	}{
		// A sharp knee at 70 % of saturation, as a real engine's: the share
		// falls from 1 to 0 within 5 req/s.
		{"knee below saturation", &curve{share: cliff(28, 5), sat: 40, n: 1000}, Spec{GoodputShare: 0.95}, 28.25, 0.03},
		// A smooth curve crossing 95 % at mid - scale*ln(19).
		{"smooth logistic", &curve{share: logistic(30, 2), sat: 40, n: 1000}, Spec{GoodputShare: 0.95}, 30 - 2*math.Log(19), 0.03},
		// A loose SLO holds beyond the saturation throughput (short probes
		// build little backlog): the bracket must grow past saturation.
		{"capacity above saturation", &curve{share: cliff(55, 10), sat: 40, n: 1000}, Spec{GoodputShare: 0.95}, 55.5, 0.03},
		// A share of 50 %.
		{"median goodput", &curve{share: cliff(12, 20), sat: 40, n: 1000}, Spec{GoodputShare: 0.5}, 22, 0.03},
		// Whole concurrencies: the largest passing one.
		{"concurrency", &curve{share: cliff(37, 10), sat: 40, n: 1000}, Spec{GoodputShare: 0.95, Over: result.OverConcurrency, MaxConcurrency: 256}, 37, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Search(context.Background(), c.curve, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if rel := math.Abs(got.Capacity-c.want) / c.want; rel > c.tol {
				t.Errorf("capacity %.3f, want %.3f within %.0f%% (probes %v)", got.Capacity, c.want, 100*c.tol, c.curve.loads)
			}
			if len(got.Probes) > DefaultMaxProbes {
				t.Errorf("%d probes, want at most %d", len(got.Probes), DefaultMaxProbes)
			}
			if !got.Converged {
				t.Errorf("not converged: %v", got.Warnings)
			}
			if !got.Probes[0].Unlimited || got.Saturation != c.curve.sat {
				t.Errorf("first probe %+v, saturation %v: want the unlimited probe measuring %v", got.Probes[0], got.Saturation, c.curve.sat)
			}
			if !(got.Low <= got.Capacity && (got.High == 0 || got.Capacity <= got.High)) {
				t.Errorf("interval [%v, %v] does not hold the capacity %v", got.Low, got.High, got.Capacity)
			}
			if got.Low == 0 || got.High == 0 {
				t.Errorf("interval [%v, %v]: with 1000-request probes both ends should be sure", got.Low, got.High)
			}
		})
	}
}

// TestShortProbesWidenTheInterval checks that the binomial uncertainty
// of short probes shows in the interval: with 40 requests a probe that
// met the SLO for all of them cannot be sure of 95 % (Wilson's lower
// bound of 40/40 is 91 %), so the interval reaches down to 0.
func TestShortProbesWidenTheInterval(t *testing.T) {
	long, err := Search(context.Background(), &curve{share: cliff(28, 5), sat: 40, n: 2000}, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	short, err := Search(context.Background(), &curve{share: cliff(28, 5), sat: 40, n: 40}, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if !(short.High-short.Low > long.High-long.Low) {
		t.Errorf("40-request interval [%v, %v] is not wider than the 2000-request one [%v, %v]", short.Low, short.High, long.Low, long.High)
	}
	if short.Low != 0 {
		t.Errorf("40-request probes: low %v, want 0 (no probe is surely at 95 %%)", short.Low)
	}
}

func TestSearchEdges(t *testing.T) {
	t.Run("SLO never met", func(t *testing.T) {
		c := &curve{share: func(float64) float64 { return 0.5 }, sat: 40, n: 100}
		got, err := Search(context.Background(), c, Spec{MaxProbes: 6})
		if err != nil {
			t.Fatal(err)
		}
		if got.Capacity != 0 || len(got.Probes) != 6 || !strings.Contains(strings.Join(got.Warnings, ";"), "not met at any load") {
			t.Errorf("capacity %v after %d probes, warnings %q", got.Capacity, len(got.Probes), got.Warnings)
		}
	})
	t.Run("SLO always met", func(t *testing.T) {
		c := &curve{share: func(float64) float64 { return 1 }, sat: 40, n: 100}
		got, err := Search(context.Background(), c, Spec{MaxProbes: 4})
		if err != nil {
			t.Fatal(err)
		}
		// inf, 40, 80, 160: all pass, the budget ends the doubling.
		if got.Capacity != 160 || got.Converged || got.High != 0 {
			t.Errorf("got %+v, want capacity 160 (the last passing probe), not converged, no upper end", got)
		}
	})
	t.Run("nothing completes at saturation", func(t *testing.T) {
		// A dead server or one that fails every request: an error (the
		// run fails), not a measured capacity of 0; the probe is kept.
		c := &curve{share: cliff(5, 1), sat: 0, n: 100}
		got, err := Search(context.Background(), c, Spec{})
		if !errors.Is(err, ErrNothingServed) {
			t.Fatalf("err %v, want ErrNothingServed", err)
		}
		if len(got.Probes) != 1 || got.Capacity != 0 || got.Converged {
			t.Errorf("got %+v, want the one probe kept, capacity 0, not converged", got)
		}
	})
	t.Run("budget bounds the probes", func(t *testing.T) {
		c := &curve{share: logistic(30, 0.01), sat: 40, n: 100000}
		got, err := Search(context.Background(), c, Spec{MaxProbes: 3, Resolution: 0.0001})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Probes) != 3 || got.Converged {
			t.Errorf("%d probes, converged %v; want 3 and not converged", len(got.Probes), got.Converged)
		}
	})
	t.Run("prober error", func(t *testing.T) {
		boom := errors.New("server gone")
		p := ProberFunc(func(context.Context, float64) (Measurement, error) { return Measurement{}, boom })
		got, err := Search(context.Background(), p, Spec{})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "rate inf") {
			t.Errorf("err %v, want it wrapped with the probe's load", err)
		}
		if got == nil || len(got.Probes) != 0 {
			t.Errorf("got %+v, want an empty search", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Search(ctx, &curve{share: cliff(5, 1), sat: 40, n: 10}, Spec{}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	})
	t.Run("bad spec", func(t *testing.T) {
		for _, s := range []Spec{{GoodputShare: 1.5}, {Over: "tokens"}, {MaxProbes: 1}, {Resolution: 2}, {Over: result.OverConcurrency}} {
			if _, err := Search(context.Background(), &curve{share: cliff(5, 1), sat: 40, n: 10}, s); err == nil {
				t.Errorf("%+v: no error", s)
			}
		}
	})
}

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		good, total int
		lo, hi      float64
	}{
		{0, 0, 0, 1},
		{40, 40, 0.9124, 1},
		{100, 100, 0.9630, 1},
		{95, 100, 0.8882, 0.9785},
		{0, 50, 0, 0.0714},
	} {
		lo, hi := Wilson(c.good, c.total)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.good, c.total, lo, hi, c.lo, c.hi)
		}
	}
}

// ProberFunc adapts a function to Prober.
type ProberFunc func(ctx context.Context, load float64) (Measurement, error)

// Probe calls f.
func (f ProberFunc) Probe(ctx context.Context, load float64) (Measurement, error) {
	return f(ctx, load)
}
