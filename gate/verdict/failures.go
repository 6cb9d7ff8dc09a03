package verdict

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// NewFailures returns a note when the candidate c failed requests while
// no baseline session of bs failed any, "" otherwise. success_rate is
// gated with a tolerance (0.5 points by default) sized for engines that
// shed load under overload, so a build that starts answering 0.5 % of its
// requests with HTTP 500 can pass it; a failure where the baseline had
// none is a new kind of behaviour, not noise, so it is always shown
// (docs/statistics.md, "New server errors"). The note gives the one-sided
// p-value of Fisher's exact test conditional on the total number of
// failures: the chance that, under one failure rate common to both
// arms, every failure lands in the candidate.
func NewFailures(bs []*result.Result, c *result.Result) string {
	if c == nil || len(bs) == 0 {
		return ""
	}
	var nb int
	for _, b := range bs {
		for _, t := range b.ValidTrials() {
			if t.Failed > 0 {
				return ""
			}
			nb += t.Completed
		}
	}
	var nc, k int
	kinds := map[string]int{}
	for _, t := range c.ValidTrials() {
		nc += t.Completed + t.Failed
		k += t.Failed
		for kind, n := range t.Errors {
			kinds[kind] += n
		}
	}
	if k == 0 || nb == 0 {
		return ""
	}
	return fmt.Sprintf("new server errors: the candidate failed %d of %d requests (%.2f %%%s) where the baseline failed none of %d; with one failure rate in both runs all %d would land in the candidate with probability %s (Fisher's exact test). success_rate's tolerance may let this pass: read the error samples in the result file, or gate it tighter (policy.tolerances.success_rate)",
		k, nc, 100*float64(k)/float64(nc), kindText(kinds), nb, k, probText(fisherAllIn(nc, nb+nc, k)))
}

// fisherAllIn is the hypergeometric probability that all k failures among
// n requests fall among the m of the candidate: C(m, k) / C(n, k).
func fisherAllIn(m, n, k int) float64 {
	if k > m {
		return 0
	}
	return math.Exp(lchoose(m, k) - lchoose(n, k))
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

func probText(p float64) string {
	if p < 0.0001 {
		return "below 0.01 %"
	}
	return fmt.Sprintf("%.2g %%", 100*p)
}

// kindText lists the error kinds by count, e.g. "; http_500 ×5".
func kindText(kinds map[string]int) string {
	if len(kinds) == 0 {
		return ""
	}
	names := slices.SortedFunc(maps.Keys(kinds), func(a, b string) int {
		return cmp.Or(cmp.Compare(kinds[b], kinds[a]), strings.Compare(a, b)) // most first
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", n, kinds[n])
	}
	return "; " + strings.Join(parts, ", ")
}
