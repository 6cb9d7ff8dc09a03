package ab

import "time"

// MoreBlocks is how many blocks the next look of an experiment adds: the
// blocks still allowed (left) spread over the looks that remain (so the
// last look can add some too), in whole quads where they fit so ABBA BAAB
// stays whole (Extend), in pairs in any case, and no more than fit in the
// budget's remaining time (timeLeft) at the blocks' measured pace
// (perBlock; 0 before any block ran). 0 means no further look.
func MoreBlocks(left, looksLeft int, perBlock, timeLeft time.Duration) int {
	if left < 2 || looksLeft < 1 {
		return 0
	}
	more := quads((left + looksLeft - 1) / looksLeft)
	if perBlock > 0 {
		more = min(more, evenDown(max(int(timeLeft/perBlock), 0)))
	}
	return min(more, evenDown(left))
}

// quads rounds n up to whole quads of blocks.
func quads(n int) int { return (n + 3) / 4 * 4 }

// evenDown rounds n >= 0 down to an even count.
func evenDown(n int) int { return n - n%2 }
