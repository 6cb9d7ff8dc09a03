package cli

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/workload"
)

// The embedded smoke set expands to the same cells and hashes as the files
// on disk, so the demo from an installed binary runs the reviewed workloads.
func TestDemoEmbeddedMatchesDisk(t *testing.T) {
	// Not parallel: t.Chdir, the disk side loads workloads/smoke as the demo does.
	emb, err := demoEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	disk, err := workload.LoadPaths([]string{"workloads/smoke"})
	if err != nil {
		t.Fatal(err)
	}
	if len(emb) == 0 || len(emb) != len(disk) {
		t.Fatalf("embedded %d cells, disk %d", len(emb), len(disk))
	}
	for i := range disk {
		if emb[i].Cell != disk[i].Cell || emb[i].Hash != disk[i].Hash {
			t.Errorf("cell %d: embedded %s %s, disk %s %s", i, emb[i].Cell, emb[i].Hash, disk[i].Cell, disk[i].Hash)
		}
	}
}

// The demo's profiling flag is named as gate's, ab's and run's; the old
// --profile still parses (deprecated) and a bad value names the flag.
func TestDemoProfilingFlag(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--profiling", "--profile"} {
		code, _, stderr := runCLI("demo", flag, "sometimes")
		if code != ExitInvalid || !strings.Contains(stderr, `--profiling: profile "sometimes": want on-regression, always or never`) {
			t.Errorf("demo %s sometimes: exit %d, stderr %q", flag, code, stderr)
		}
	}
}
