package report

import (
	"io"
	"testing"
)

// BenchmarkMarkdown200 renders the PR comment of 200 workloads (3
// regressed) under GitHub's limit: the size budgeting re-joins the parts
// after every trimming step, so this is its worst realistic case.
func BenchmarkMarkdown200(b *testing.B) {
	d := manyWorkloads(200, 3)
	b.ReportAllocs()
	for b.Loop() {
		if err := Markdown(io.Discard, d, CommentLimit); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEscape measures escaping a 4 KiB hostile error body.
func BenchmarkEscape(b *testing.B) {
	body := make([]byte, 4096)
	for i := range body {
		body[i] = "a|<>`[]@\n"[i%9]
	}
	s := string(body)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Escape(s)
	}
}
