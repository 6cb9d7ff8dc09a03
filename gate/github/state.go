package github

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strings"
)

// State is what a comment reported: the verdict and the set of regressed
// cells. It is stored in the comment as a hidden line (see Line) so that
// the next run, in comment mode on-change, can tell whether anything a
// reviewer should be told about has changed since.
type State struct {
	// Verdict is the run's verdict ("pass", "regression", "run-failed" ...).
	Verdict string
	// Regressed is a hash of the sorted, deduplicated workload:metric
	// cells that regressed; equal sets give equal hashes. A hash rather
	// than the list keeps the line short and free of workload names, which
	// could otherwise end the HTML comment.
	Regressed string
}

// stateVersion names the line's format, so a later format can be told
// apart instead of misread.
const stateVersion = "v1"

const statePrefix = "<!-- perfgate-state " + stateVersion + " "

var (
	verdictRe = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	hashRe    = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// NewState is the state of a run with verdict whose cells regressed.
// A verdict that is not a short lower-case word is stored as "unknown".
func NewState(verdict string, regressed []string) State {
	if !verdictRe.MatchString(verdict) {
		verdict = "unknown"
	}
	cells := append([]string(nil), regressed...)
	sort.Strings(cells)
	h := sha256.New()
	for i, c := range cells {
		if i > 0 && cells[i-1] == c {
			continue
		}
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	return State{Verdict: verdict, Regressed: hex.EncodeToString(h.Sum(nil)[:8])}
}

// Line is the hidden HTML comment that carries s, e.g.
// "<!-- perfgate-state v1 verdict=regression regressed=0123456789abcdef -->".
func (s State) Line() string {
	return statePrefix + "verdict=" + s.Verdict + " regressed=" + s.Regressed + " -->"
}

// ParseState finds the state line in a comment body and reads it back. It
// reports false when the body has no well-formed line (a comment from an
// older perfgate, or one a person edited): the caller then treats the
// state as changed. When several lines are present the last one counts,
// since perfgate appends its line after the report.
func ParseState(body string) (State, bool) {
	i := strings.LastIndex(body, statePrefix)
	if i < 0 {
		return State{}, false
	}
	rest := body[i+len(statePrefix):]
	end := strings.Index(rest, " -->")
	if end < 0 {
		return State{}, false
	}
	fields := strings.Split(rest[:end], " ")
	if len(fields) != 2 {
		return State{}, false
	}
	verdict, ok1 := strings.CutPrefix(fields[0], "verdict=")
	hash, ok2 := strings.CutPrefix(fields[1], "regressed=")
	if !ok1 || !ok2 || !verdictRe.MatchString(verdict) || !hashRe.MatchString(hash) {
		return State{}, false
	}
	return State{Verdict: verdict, Regressed: hash}, true
}
