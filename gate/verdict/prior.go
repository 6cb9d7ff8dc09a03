package verdict

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
