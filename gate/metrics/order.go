package metrics

import "sort"

// Order lists the metric ids of set in the catalogue's report order
// (All); ids outside the catalogue come last, alphabetically. Every
// listing of metrics (the history table, the noise screen's findings)
// uses it, so they read in the same order as the report.
func Order(set map[string]bool) []string {
	rank := map[string]int{}
	for i, id := range All() {
		rank[id] = i
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, oki := rank[out[i]]
		rj, okj := rank[out[j]]
		if oki != okj {
			return oki
		}
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}
