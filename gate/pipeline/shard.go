package pipeline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/workload"
)

// ParseShard parses "i/N" (1 <= i <= N), the --shard flag of a CI matrix.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want i/N with 1 <= i <= N, e.g. 2/4", s)
	}
	return i, n, nil
}

// Shard returns shard i of n (1-based): the manifests sorted by cell name,
// keeping every n-th from position i-1. Every cell lands in exactly one
// shard, each shard gets a similar mix, and the split does not depend on
// the order the files were given in, so matrix jobs agree without
// coordinating.
func Shard(ms []*workload.Manifest, i, n int) ([]*workload.Manifest, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want 1 <= i <= n", i, n)
	}
	sorted := append([]*workload.Manifest(nil), ms...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Cell < sorted[b].Cell })
	var out []*workload.Manifest
	for p, m := range sorted {
		if p%n == i-1 {
			out = append(out, m)
		}
	}
	return out, nil
}
