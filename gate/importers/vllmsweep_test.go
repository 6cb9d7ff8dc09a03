package importers

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sweepDir = "testdata/vllm-sweep/20261201_100000"

// readSweep reads an experiment directory as the command does.
func readSweep(t testing.TB, dir string) []SweepFile {
	t.Helper()
	var files []SweepFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files = append(files, SweepFile{Path: filepath.ToSlash(rel), Data: data})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestImportSweep(t *testing.T) {
	results, notes, err := ImportSweep(readSweep(t, sweepDir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("%d cells, want one per combination (2)", len(results))
	}
	a, b := results[0], results[1]
	if a.Workload.Cell != "SERVE-max_num_seqs_128-BENCH-max_concurrency_32" || len(a.Trials) != 2 {
		t.Errorf("cell %q with %d trials", a.Workload.Cell, len(a.Trials))
	}
	if b.Workload.Cell != "SERVE-max_num_seqs_64-BENCH-max_concurrency_16" || len(b.Trials) != 3 {
		t.Errorf("cell %q with %d trials (warmup.json and summary.json are not trials)", b.Workload.Cell, len(b.Trials))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "run=2.failure.json") || !strings.Contains(notes[0], "CalledProcessError") {
		t.Errorf("notes %q: the failed run must be reported", notes)
	}
	if _, ok := b.Trials[0].Values["itl_ms.p99"]; !ok {
		t.Errorf("trial values %v", b.Trials[0].Values)
	}
	if _, _, err := ImportSweep([]SweepFile{{Path: "x/summary.json", Data: []byte("[]")}}, Options{}); err == nil || !strings.Contains(err.Error(), "run=N.json") {
		t.Errorf("a directory without runs: %v", err)
	}
	bad := []SweepFile{{Path: "SERVE-a/run=0.json", Data: []byte("{\n\"completed\": }")}}
	if _, _, err := ImportSweep(bad, Options{}); err == nil || !strings.Contains(err.Error(), "SERVE-a/run=0.json") {
		t.Errorf("a broken run file: %v", err)
	}
}

func FuzzImportSweep(f *testing.F) {
	files := readSweep(f, sweepDir)
	for _, sf := range files {
		f.Add(sf.Path, sf.Data)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		res, _, err := ImportSweep([]SweepFile{{Path: name, Data: data}}, Options{Name: "x"})
		if err == nil && len(res) != 1 {
			t.Fatalf("%d results from one file", len(res))
		}
	})
}
