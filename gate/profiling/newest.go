package profiling

import (
	"strings"
	"time"
)

// Entry is one file of the directory an engine writes its traces to.
type Entry struct {
	Name    string
	Size    int64
	ModTime time.Time
}

// IsTrace says whether a file name is a torch-profiler trace as vLLM,
// SGLang and the simulator write them: *.json or *.json.gz (vLLM:
// <worker>.<ms>.pt.trace.json.gz; SGLang: <ms>-TP-0.trace.json.gz).
func IsTrace(name string) bool {
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz")
}

// Newest is the newest trace in now that was not in before (the names
// listed before the profiled trial started): the trace that trial wrote.
// With tensor parallelism every rank writes one; any rank tells the
// kernels' time per step. Ties go to the larger name, so the answer does
// not depend on the listing's order.
func Newest(before map[string]bool, now []Entry) (Entry, bool) {
	var best Entry
	found := false
	for _, e := range now {
		if before[e.Name] || !IsTrace(e.Name) {
			continue
		}
		if !found || e.ModTime.After(best.ModTime) || (e.ModTime.Equal(best.ModTime) && e.Name > best.Name) {
			best, found = e, true
		}
	}
	return best, found
}

// Settled says whether a trace seen twice, a poll apart, is complete:
// the same file, not empty, the same size. Engines write the trace after
// /stop_profile returns (vLLM's workers export it asynchronously), so the
// reader waits until it stops growing.
func Settled(prev, cur Entry) bool {
	return prev.Name == cur.Name && cur.Size > 0 && prev.Size == cur.Size
}
