package workloads

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The embedded files are the files on disk: nothing to regenerate, but a
// test keeps the pattern honest if the folder is reorganised.
func TestSmokeEmbedsEveryFile(t *testing.T) {
	onDisk, err := filepath.Glob("smoke/*.yaml")
	if err != nil || len(onDisk) == 0 {
		t.Fatalf("no smoke workloads on disk (%v)", err)
	}
	for _, p := range onDisk {
		want, _ := os.ReadFile(p)
		got, err := fs.ReadFile(Smoke, p)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: embedded copy differs or is missing (%v)", p, err)
		}
	}
}
