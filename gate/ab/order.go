// Package ab is the statistics of `perfgate ab`: two arms, A and B, run on
// one runner in interleaved blocks, and a paired verdict of B against A.
//
// A stored baseline carries the runner's drift, the baseline server's
// start-up offset and whatever else changed since it was recorded into
// every comparison. Interleaving cancels them: blocks run in a balanced
// order (ABBA BAAB ...), each adjacent pair of blocks holds one block of
// each arm, and the verdict is taken over the pairs' differences, so what
// the two blocks of a pair share (the runner's state at that moment)
// drops out. docs/statistics.md, "Paired A/B verdict", is the
// specification; the seeded tests of this package measure its error rates.
//
// The package is pure: it reads result.Result values and returns a
// verdict.Comparison. Launching servers and running blocks is gate/cli's.
package ab

import (
	"fmt"
	"strings"
)

// The default design: DefaultBlocks blocks of DefaultBlockTrials measured
// trials each, the servers restarted before every block. The choice is
// measured by TestDefaultDesign (docs/statistics.md, "Paired A/B
// verdict"): at a per-start offset of CV 2 % (the size the published
// studies show between restarts) it passes an unchanged build and finds a
// 5 % decode slowdown in most runs within the adaptive looks, while
// restarts dominate the cost, so blocks of two trials beat both one trial
// (more restarts per unit of information on the noisier tail statistics)
// and longer blocks (the per-start offset, not the trials, is the larger
// part of a pair's noise).
//
// DefaultMoreBlocks is how many blocks each further look adds (two quads,
// so ABBA BAAB stays whole) while a gated cell is undecided.
const (
	DefaultBlocks      = 16
	DefaultBlockTrials = 2
	DefaultMoreBlocks  = 8
)

// Order returns the arms of n blocks in run order, one letter per block,
// e.g. "ABBABAAB". Blocks are grouped in quads, each a mirrored pair of
// pairs (ABBA or BAAB), so that a drift linear in time cancels exactly
// over every quad; with n = 2 mod 4 the last pair stands alone.
//
// With seed 0 the quads alternate ABBA BAAB ABBA ...: the pattern that
// also cancels a quadratic drift over every eight blocks. With any other
// seed each quad's orientation is drawn from the seed, independently of n,
// so Order(n+m, seed) starts with Order(n, seed) and an experiment can be
// extended without breaking its balance (see Extend). n must be even and
// at least 2.
func Order(n int, seed uint64) (string, error) {
	if n < 2 || n%2 != 0 {
		return "", fmt.Errorf("blocks %d: want an even number of at least 2 (each pair of blocks holds one A and one B)", n)
	}
	var b strings.Builder
	for i := 0; i < n; i += 2 {
		b.WriteString(pairAt(i/2, seed))
	}
	return b.String(), nil
}

// pairAt is the k-th pair (0-based) of the order drawn from seed: the
// first pair of quad k/2 is "AB" for an ABBA quad, "BA" for BAAB, and the
// second pair mirrors the first.
func pairAt(k int, seed uint64) string {
	abba := quadABBA(k/2, seed)
	if k%2 == 1 {
		abba = !abba
	}
	if abba {
		return "AB"
	}
	return "BA"
}

// quadABBA says whether quad q of the order drawn from seed is ABBA.
func quadABBA(q int, seed uint64) bool {
	if seed == 0 {
		return q%2 == 0
	}
	return splitmix(seed^uint64(q+1)*0x9e3779b97f4a7c15)&1 == 0
}

// splitmix is the SplitMix64 finaliser: a well-mixed bit of the seed and
// the quad's index, reproducible on every platform.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Extend returns order with more blocks appended for another look, keeping
// the whole sequence balanced: a quad left half done is completed by its
// mirror pair, and further quads follow the order drawn from seed (for
// the order Order(len(order), seed) made, Extend gives Order(len(order) +
// more, seed)). more must be even and at least 2; order must be a
// balanced order (see Check).
func Extend(order string, more int, seed uint64) (string, error) {
	if err := Check(order); err != nil {
		return "", err
	}
	if more < 2 || more%2 != 0 {
		return "", fmt.Errorf("more blocks %d: want an even number of at least 2", more)
	}
	var b strings.Builder
	b.WriteString(order)
	for k := len(order) / 2; k < (len(order)+more)/2; k++ {
		if k%2 == 1 {
			// Complete the quad: the mirror of its first pair.
			first := b.String()[2*(k-1) : 2*k]
			b.WriteString(mirror(first))
			continue
		}
		b.WriteString(pairAt(k, seed))
	}
	return b.String(), nil
}

func mirror(pair string) string {
	if pair == "AB" {
		return "BA"
	}
	return "AB"
}

// Check reports whether order is a balanced block order: only the letters
// A and B, an even number of them, each adjacent pair of blocks one A and
// one B, and each quad (blocks 4k+1..4k+4) a mirrored pair of pairs (ABBA
// or BAAB), so that a linear drift cancels over it. The error names the
// first block that breaks the rule.
func Check(order string) error {
	if len(order) < 2 || len(order)%2 != 0 {
		return fmt.Errorf("order %q: want an even number of at least 2 blocks, got %d", order, len(order))
	}
	for i := 0; i < len(order); i++ {
		if order[i] != 'A' && order[i] != 'B' {
			return fmt.Errorf("order %q: block %d is %q, want A or B", order, i+1, order[i])
		}
	}
	for i := 0; i < len(order); i += 2 {
		if order[i] == order[i+1] {
			return fmt.Errorf("order %q: blocks %d-%d are %q: each pair of blocks must hold one A and one B", order, i+1, i+2, order[i:i+2])
		}
		if i%4 == 2 && order[i] != order[i-1] {
			return fmt.Errorf("order %q: blocks %d-%d are %q, not a mirrored quad (ABBA or BAAB): a linear drift would not cancel", order, i-1, i+2, order[i-2:i+2])
		}
	}
	return nil
}

// pairSigns returns, per pair of order, +1 when A ran first (AB) and -1
// when B did (BA): the sign with which a drift enters the pair's B-A
// difference.
func pairSigns(order string) []float64 {
	s := make([]float64, len(order)/2)
	for k := range s {
		s[k] = 1
		if order[2*k] == 'B' {
			s[k] = -1
		}
	}
	return s
}
