package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/trace"
)

// TestPromoteOps: baseline update carries the op summaries of the cells
// it promoted, and only those; one that does not parse is a warning.
func TestPromoteOps(t *testing.T) {
	t.Parallel()
	from, store := t.TempDir(), baseline.Store{Root: t.TempDir()}
	for _, cell := range []string{"a", "b"} {
		o := &baseline.Ops{Schema: baseline.OpsSchema, Cell: cell, Hash: "h", Requests: 4, Trace: "t.json",
			Summary: trace.Summary{File: "t.json", Steps: 4, Ops: []trace.Op{{Name: "mlp", Calls: 4, TotalUS: 40}}}}
		if err := baseline.WriteOpsFile(filepath.Join(from, "profiles", "ops", cell+".json"), o); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(from, "profiles", "ops", "c.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	got := promoteOps(&log, store, "p", from, []string{store.Path("p", "a")})
	if want := []string{store.OpsPath("p", "a")}; !reflect.DeepEqual(got, want) {
		t.Errorf("promoted %v, want %v", got, want)
	}
	if _, err := baseline.ReadOpsFile(store.OpsPath("p", "b")); !os.IsNotExist(err) {
		t.Errorf("b was not promoted but has a summary: %v", err)
	}
	if !strings.Contains(log.String(), "c.json:") {
		t.Errorf("no warning for the bad summary: %s", log.String())
	}
	if got := promoteOps(&log, store, "p", filepath.Join(from, "none"), nil); got != nil {
		t.Errorf("no profiles: %v", got)
	}
}
