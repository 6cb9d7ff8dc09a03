package history

import (
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/verdict"
)

// StepLevel is the confidence level of a step's interval.
const StepLevel = 0.95

// Step is a detected step of one metric of one cell: the first session
// after it and its size. Change, Low and High are percent for relative
// metrics (candidate-style natural sign: +10 means the level rose 10 %)
// and percentage points for ratio metrics; [Low, High] is a StepLevel
// Welch interval of the difference between the levels of the segments
// before and after the step.
type Step struct {
	Metric   string    `json:"metric"`
	Session  int       `json:"session"`
	Commit   string    `json:"commit,omitempty"`
	Date     time.Time `json:"date"`
	Absolute bool      `json:"absolute,omitempty"`
	Change   float64   `json:"change"`
	Low      float64   `json:"low"`
	High     float64   `json:"high"`
	P        float64   `json:"p"`
	// Before and After count the sessions of the adjacent segments the
	// size is estimated from.
	Before int `json:"before"`
	After  int `json:"after"`
}

// Steps detects the steps of s with d and sizes each against its
// neighbouring segments.
func (c *Cell) Steps(s Series, d Detector) []Step {
	splits := d.DetectSeries(s)
	var out []Step
	for i, sp := range splits {
		lo := 0
		if i > 0 {
			lo = splits[i-1].At
		}
		hi := len(s.Mean)
		if i+1 < len(splits) {
			hi = splits[i+1].At
		}
		left, right := s.Mean[lo:sp.At], s.Mean[sp.At:hi]
		diff, dlo, dhi := welch(left, right, StepLevel)
		sess := c.Sessions[s.Session[sp.At]]
		st := Step{
			Metric: s.Metric, Session: s.Session[sp.At], Commit: sess.Commit, Date: sess.PromotedAt,
			Absolute: s.Absolute, P: sp.P, Before: len(left), After: len(right),
		}
		if s.Absolute {
			st.Change, st.Low, st.High = 100*diff, 100*dlo, 100*dhi
		} else {
			st.Change, st.Low, st.High = 100*math.Expm1(diff), 100*math.Expm1(dlo), 100*math.Expm1(dhi)
		}
		out = append(out, st)
	}
	return out
}

// welch returns mean(b)-mean(a) and its two-sided Welch interval at level.
func welch(a, b []float64, level float64) (diff, lo, hi float64) {
	ma, va := verdict.MeanVar(a)
	mb, vb := verdict.MeanVar(b)
	diff = mb - ma
	ea, eb := va/float64(len(a)), vb/float64(len(b))
	se2 := ea + eb
	if se2 <= 0 {
		return diff, diff, diff
	}
	var df float64 // 0: normal, when a side has one session
	if len(a) < 2 || len(b) < 2 {
		df = 0
	} else if den := sq(ea)/float64(len(a)-1) + sq(eb)/float64(len(b)-1); den > 0 {
		df = sq(se2) / den
	}
	half := verdict.TQuantile(1-(1-level)/2, df) * math.Sqrt(se2)
	return diff, diff - half, diff + half
}

func sq(x float64) float64 { return x * x }
