package verdict

import "math"

// Prior is what is known about one (workload cell, metric)'s noise from
// outside the two arms being compared: a calibration with server restarts
// (`perfgate calibrate`) or the baseline's history of promoted runs. Both
// variances are on the verdict's test scale: of natural logs for relative
// metrics (so a variance of 0.03² is a CV of about 3 %), of the value
// itself for absolute metrics (success_rate).
//
// The trials of one server session are not replicates of a comparison
// whose baseline came from another session: serving engines shift between
// sessions by more than they wobble within one (shared studies, §6). The
// within-session variance says how far two trials of one session differ;
// the between-session variance says how far two sessions' true levels
// differ, and no number of trials of one session shrinks it.
type Prior struct {
	// WithinVar is the within-session (trial-to-trial) variance; WithinDF
	// its degrees of freedom. Zero WithinDF: unknown.
	WithinVar float64 `json:"within_var"`
	WithinDF  float64 `json:"within_df"`
	// BetweenVar is the between-session variance of a session's true level;
	// BetweenDF its degrees of freedom (number of sessions minus one, or
	// the Satterthwaite equivalent). Zero BetweenDF: unknown.
	BetweenVar float64 `json:"between_var"`
	BetweenDF  float64 `json:"between_df"`
	// Source says where the estimate came from: "calibration", "history".
	Source string `json:"source"`
	// Sessions is how many sessions the between-session estimate rests
	// on (0: not recorded); it bounds BetweenDF below (MinBetweenDF).
	Sessions int `json:"sessions,omitempty"`
}

// MinBetweenDF is the fewest degrees of freedom a between-session estimate
// from sessions sessions is taken on: sessions-1, and 1 when the count is
// not recorded (0) or 1.
//
// Satterthwaite's degrees of freedom of the moment estimate (MSB-MSW)/n0
// fall towards 0 when MSB barely exceeds MSW: 0.007 was recorded from 3
// restarts x 3 trials, and a t test on 0.007 degrees of freedom at a Holm
// level gave intervals of -100 % to +4e53 %, so an unchanged build could
// never pass on a between-session variance that was nearly 0. Those df
// describe the relative error of a variance close to 0; the absolute error,
// which is what widens the gate's interval, is that of MSB/n0 on K-1
// degrees of freedom (the gate measures its within-session term from its
// own trials). K-1 is also what a truncated estimate (0) rests on, so a
// tiny positive estimate is as firm as a zero one instead of infinitely
// less firm. When the between-session variance dominates, Satterthwaite's
// df approach K-1 anyway.
func MinBetweenDF(sessions int) float64 { return math.Max(float64(sessions-1), 1) }

// betweenDF is p's between-session degrees of freedom bounded below by
// MinBetweenDF; 0 (unknown) stays 0.
func (p Prior) betweenDF() float64 {
	if p.BetweenDF <= 0 {
		return 0
	}
	return math.Max(p.BetweenDF, MinBetweenDF(p.Sessions))
}

// Priors maps a workload cell to its metrics' priors: Priors[cell][metric].
type Priors map[string]map[string]Prior

// Lookup returns the prior of (cell, metric), if any.
func (p Priors) Lookup(cell, metric string) (Prior, bool) {
	m, ok := p[cell]
	if !ok {
		return Prior{}, false
	}
	pr, ok := m[metric]
	return pr, ok
}
