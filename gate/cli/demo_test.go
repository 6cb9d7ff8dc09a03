package cli

import (
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
