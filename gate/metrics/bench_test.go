package metrics

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkAccumulatorMemory measures what a trial retains per finished
// request (128-token outputs, one token per chunk): the exact samples kept
// for numpy-identical percentiles. The per-trial histograms are a fixed
// cost and are subtracted by measuring an empty accumulator first.
func BenchmarkAccumulatorMemory(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("requests=%d", n), func(b *testing.B) {
			gaps := make([]float32, 127)
			for i := range gaps {
				gaps[i] = 10
			}
			for i := 0; i < b.N; i++ {
				heap := func() uint64 {
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					return ms.HeapAlloc
				}
				h0 := heap()
				acc := NewAccumulator(SLO{}, 0)
				h1 := heap()
				for j := 0; j < n; j++ {
					r := &Request{Sent: time.Duration(j) * time.Millisecond, FirstToken: time.Duration(j)*time.Millisecond + 50*time.Millisecond,
						Success: true, InputTokens: 10, OutputTokens: 128, MaxTokens: 128, Chunks: 128, Gaps: gaps}
					r.LastToken = r.FirstToken + 1270*time.Millisecond
					acc.Add(r)
				}
				h2 := heap()
				b.ReportMetric(float64(h1-h0), "B/trial-fixed")
				b.ReportMetric(float64(h2-h1)/float64(n), "B/request")
				runtime.KeepAlive(acc)
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkAdd is the accumulator's cost per finished 128-token request.
func BenchmarkAdd(b *testing.B) {
	gaps := make([]float32, 127)
	for i := range gaps {
		gaps[i] = float32(10 + i%7)
	}
	acc := NewAccumulator(SLO{TTFTms: 100}, 0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := &Request{FirstToken: 50 * time.Millisecond, LastToken: 50*time.Millisecond + 1651*time.Millisecond,
			Success: true, OutputTokens: 128, MaxTokens: 128, Chunks: 128, Gaps: gaps}
		acc.Add(r)
	}
}
