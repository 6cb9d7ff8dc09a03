package ab

import (
	"testing"
	"time"
)

// TestMoreBlocks: the blocks each extra look adds.
func TestMoreBlocks(t *testing.T) {
	for _, tt := range []struct {
		left, looksLeft  int
		perBlock, budget time.Duration
		want             int
	}{
		{16, 2, time.Minute, time.Hour, 8},        // half now, half at the last look
		{6, 2, time.Minute, time.Hour, 4},         // a whole quad now, the last pair later
		{2, 1, time.Minute, time.Hour, 2},         // a last pair
		{16, 2, time.Minute, 5 * time.Minute, 4},  // the budget holds five blocks: two pairs
		{16, 2, time.Minute, 90 * time.Second, 0}, // not even a pair fits
		{1, 2, time.Minute, time.Hour, 0},         // an odd block never runs alone
		{8, 0, time.Minute, time.Hour, 0},         // no look left
		{7, 1, 0, time.Hour, 6},                   // no measured pace yet: the count alone
	} {
		if got := MoreBlocks(tt.left, tt.looksLeft, tt.perBlock, tt.budget); got != tt.want {
			t.Errorf("MoreBlocks(%d, %d, %v, %v) = %d, want %d", tt.left, tt.looksLeft, tt.perBlock, tt.budget, got, tt.want)
		}
	}
}
