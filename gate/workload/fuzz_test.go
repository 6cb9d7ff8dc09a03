package workload

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser: it must never panic, and
// every problem must be an *Error carrying a line number. Valid generated
// workloads that are small are also expanded (file datasets are not read:
// a fuzzed path could name /dev/zero).
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/invalid/*.yaml", "testdata/valid/*.yaml", "../../workloads/*.yaml", "../../workloads/smoke/*.yaml"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\ndataset: {kind: random, input_tokens: 3, output_tokens: 2}\nload: {requests: 2, rate: [1, inf], concurrency: [1, 2]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			checkLines(t, err)
			return
		}
		if !generated(file.Dataset.Kind) {
			return
		}
		_, hi := lengthRange(file.Dataset.InputTokens, file.Dataset.RangeRatio)
		if int64(hi+file.Dataset.PrefixTokens)*int64(file.Load.Requests+file.Warmups)*int64(len(file.cells())) > 200_000 {
			return
		}
		ms, _, err := file.Expand()
		if err != nil {
			checkLines(t, err)
			return
		}
		for _, m := range ms {
			if len(m.Requests) != file.Load.Requests || len(m.Hash) != 64 {
				t.Fatalf("%s: %d requests, hash %q", m.Cell, len(m.Requests), m.Hash)
			}
		}
	})
}

// checkLines fails unless every error joined in err is an *Error with a
// line number.
func checkLines(t *testing.T, err error) {
	t.Helper()
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			checkLines(t, e)
		}
		return
	}
	var we *Error
	if !errors.As(err, &we) || we.Line < 1 || we.File == "" {
		t.Fatalf("error without file:line: %v", err)
	}
}

// FuzzDatasets feeds arbitrary bytes to the ShareGPT and jsonl readers:
// they must never panic, every problem must name the file and a line that
// exists in it, and every item they accept must have positive lengths.
func FuzzDatasets(f *testing.F) {
	for _, pattern := range []string{"testdata/data/*.json", "testdata/data/*.jsonl"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"conversations": [{"from": "human", "value": "hello there, how are you"}, {"from": "gpt", "value": "fine thanks, and you?"}]}]`))
	f.Add([]byte("{\"prompt\": \"hi\", \"output_tokens\": 3}\n\n{\"prompt\": 5}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "data")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lines := 1 + bytes.Count(data, []byte("\n"))
		for name, read := range map[string]func(string, int) ([]item, []*Error){"sharegpt": readShareGPT, "jsonl": readJSONL} {
			items, errs := read(path, 0)
			for _, e := range errs {
				if e.File != path || e.Line < 1 || e.Line > lines {
					t.Fatalf("%s: error at line %d of a %d-line file: %v", name, e.Line, lines, e)
				}
			}
			for _, it := range items {
				if it.input < 1 || it.output < 1 {
					t.Fatalf("%s: accepted an item with lengths %d/%d", name, it.input, it.output)
				}
			}
		}
	})
}
