package workload

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

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

// BenchmarkReadShareGPT reads a synthetic 20000-conversation ShareGPT file
// (about 13 MB); the real file has ~94000 conversations in ~650 MB.
func BenchmarkReadShareGPT(b *testing.B) {
	path := filepath.Join(b.TempDir(), "sharegpt.json")
	var buf bytes.Buffer
	buf.WriteString("[")
	s := newStream(1, "bench")
	for i := 0; i < 20000; i++ {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, `{"id": "c%d", "conversations": [{"from": "human", "value": %q}, {"from": "gpt", "value": %q}]}`,
			i, text(s.intRange(20, 200), s), text(s.intRange(50, 400), s))
	}
	buf.WriteString("]")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		if items, errs := readShareGPT(path, 0); len(errs) > 0 || len(items) == 0 {
			b.Fatal(errs)
		}
	}
}
