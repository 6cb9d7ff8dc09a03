package verdict

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// The matching rules a workload cell passes before it is compared, shared
// by Compare (matchWorkload) and the paired A/B comparison (gate/ab), each
// naming its arms in its own words.

// ShortHash is the prefix of a workload hash that messages quote.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// IncompleteReason is why r is incomplete, as messages quote it.
func IncompleteReason(r *result.Result) string {
	return orDefault(r.IncompleteReason, "no reason recorded")
}

// CheckFingerprint applies p.AllowMismatch to the hard differences in
// w.Fingerprint: it returns false, with w's status FingerprintMismatch
// and a message that starts with what, when they keep the workload from
// being compared, and otherwise warns that it is compared despite them.
// Compare and the paired A/B comparison share it (each with its own hard
// keys) so that one rule decides when environments are too different.
func (p *Policy) CheckFingerprint(w *Workload, what string) bool {
	var hard []string
	for _, d := range w.Fingerprint {
		if d.Hard {
			hard = append(hard, fmt.Sprintf("%s %q vs %q", d.Key, d.Baseline, d.Candidate))
		}
	}
	if len(hard) == 0 {
		return true
	}
	if !p.AllowMismatch {
		w.Status = FingerprintMismatch
		w.Message = what + ": " + strings.Join(hard, ", ") + "; pass --allow-mismatch to compare anyway"
		return false
	}
	w.Warnings = append(w.Warnings, "compared despite differing environment (--allow-mismatch): "+strings.Join(hard, ", "))
	return true
}

// ExcludeInvalid lists r's invalid trials in w.Excluded under side
// ("baseline" or "candidate") and applies p.MaxInvalidShare: it returns
// false, with w's status and message set, when too few of r's trials are
// valid to compare, and otherwise warns of the ones left out. subject is
// how messages name the arm ("the baseline", "arm A"); the warning uses
// it without a leading "the" ("2 invalid baseline trial(s) excluded").
// Compare and the paired A/B comparison share it so that one rule decides
// when a run has too many invalid trials.
func (p *Policy) ExcludeInvalid(w *Workload, r *result.Result, side, subject string) bool {
	invalid := 0
	for _, t := range r.Trials {
		if !t.Valid {
			invalid++
			w.Excluded = append(w.Excluded, Excluded{Arm: side, Trial: t.Index, Reason: orDefault(t.InvalidReason, "marked invalid")})
		}
	}
	total := len(r.Trials)
	// fail marks the workload not compared; a second arm's failure is
	// added to the first's message.
	fail := func(msg string) bool {
		if w.Status == NoValidTrials && w.Message != "" {
			w.Message += "; " + msg
		} else {
			w.Status, w.Message = NoValidTrials, msg
		}
		return false
	}
	switch {
	case total == invalid:
		return fail(fmt.Sprintf("%s has no valid trial (%d recorded)", subject, total))
	case float64(invalid) > p.MaxInvalidShare*float64(total):
		return fail(fmt.Sprintf("%d of %s's %d trials are invalid (more than %.0f%%); the run is not trustworthy", invalid, subject, total, 100*p.MaxInvalidShare))
	case invalid > 0:
		w.Warnings = append(w.Warnings, fmt.Sprintf("%d invalid %s trial(s) excluded", invalid, strings.TrimPrefix(subject, "the ")))
	}
	return true
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
