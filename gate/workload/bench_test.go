package workload

import "testing"

// BenchmarkLoadLongContext expands the largest shipped workload (100
// prompts of 32000 token ids plus 20 warmups) and hashes it: the cost a
// run pays before its first request.
func BenchmarkLoadLongContext(b *testing.B) {
	for b.Loop() {
		if _, err := LoadFile("../../workloads/a100-32000-100.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHash hashes an expanded 3.8 M-token manifest.
func BenchmarkHash(b *testing.B) {
	ms, err := LoadFile("../../workloads/a100-32000-100.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		Hash(ms[0])
	}
}

// BenchmarkArrivals computes 10000 Poisson arrivals.
func BenchmarkArrivals(b *testing.B) {
	for b.Loop() {
		arrivals(10000, 100, 1, newStream(1, "arrivals"))
	}
}
