package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzTrace feeds arbitrary bytes to both trace readers: they must never
// panic, every problem and warning must name the file and a line that
// exists in it, every accepted request must have lengths in range, and
// accepted timestamps must never go backwards.
func FuzzTrace(f *testing.F) {
	for _, pattern := range []string{"testdata/data/trace*", "testdata/data/*.csv"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("{\"timestamp\": 1e300, \"input_length\": 3, \"output_length\": 1, \"hash_ids\": [-1]}\n"))
	f.Add([]byte("Timestamp,Request tokens,Response tokens\n1,\"2\n\",3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1 + bytes.Count(data, []byte("\n"))
		for name, parse := range map[string]func([]byte) ([]traceEntry, []*Error, []*Error){
			"jsonl": func(b []byte) ([]traceEntry, []*Error, []*Error) {
				return parseTraceJSONL(bytes.NewReader(b), "trace", 0, defaultLabels(TraceJSONL))
			},
			"csv": func(b []byte) ([]traceEntry, []*Error, []*Error) {
				return parseTraceCSV(bytes.NewReader(b), "trace", 0, defaultLabels(TraceCSV))
			},
		} {
			es, errs, warnings := parse(data)
			for _, e := range append(errs, warnings...) {
				if e.File != "trace" || e.Line < 1 || e.Line > lines {
					t.Fatalf("%s: problem at line %d of a %d-line file: %v", name, e.Line, lines, e)
				}
			}
			if len(errs) > 0 {
				continue
			}
			for i, e := range es {
				if (e.input < 1 && e.prompt == "") || e.input > maxTraceLength || e.output < 1 || e.output > maxTraceLength {
					t.Fatalf("%s: accepted lengths %d/%d", name, e.input, e.output)
				}
				if i > 0 && e.offset(es[i-1]) < 0 {
					t.Fatalf("%s: accepted a timestamp going backwards", name)
				}
			}
		}
	})
}
