package workload

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// goldenSmokeHash pins the expansion of workloads/smoke/smoke-burst-c4.yaml.
// If it changes, every stored baseline is invalidated: change it only with
// an intended change of the expansion and say so in the commit.
const goldenSmokeHash = "1a01e812c0da956173894aeb1460f6e5bb602cc992bb63ba8d40d3384d2caaf8"

func TestGoldenHash(t *testing.T) {
	ms, err := LoadFile("../../workloads/smoke/smoke-burst-c4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := ms[0].Hash; got != goldenSmokeHash {
		t.Errorf("hash = %s, want %s: the expansion changed", got, goldenSmokeHash)
	}
}

func TestSmokeWorkloads(t *testing.T) {
	ms, err := LoadPaths([]string{"../../workloads/smoke"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 3 {
		t.Fatalf("got %d smoke cells, want at least 3", len(ms))
	}
	for _, m := range ms {
		if m.Name == "" || m.Cell == "" || len(m.Hash) != 64 || m.API == "" || len(m.Spec) == 0 ||
			m.Timeout <= 0 || m.Trials.Min < 1 || m.Trials.Max < m.Trials.Min || m.Burstiness <= 0 || m.Rate <= 0 {
			t.Errorf("%s: manifest not filled: %+v", m.Cell, m)
		}
		if len(m.Requests) < 24 || len(m.Requests) > 48 {
			t.Errorf("%s: %d requests, want 24-48 for a smoke workload", m.Cell, len(m.Requests))
		}
		if m.Concurrency < 4 || m.Concurrency > 8 {
			t.Errorf("%s: concurrency %d, want 4-8", m.Cell, m.Concurrency)
		}
		for i, r := range m.Requests {
			if r.Index != i || r.MaxTokens < 1 || r.MaxTokens > 64 {
				t.Errorf("%s request %d: index %d, max_tokens %d", m.Cell, i, r.Index, r.MaxTokens)
			}
			if r.PromptIDs != nil && len(r.PromptIDs) != r.InputTokens {
				t.Errorf("%s request %d: %d ids, InputTokens %d", m.Cell, i, len(r.PromptIDs), r.InputTokens)
			}
			if forms := btoi(r.PromptIDs != nil) + btoi(r.Prompt != "") + btoi(r.Messages != nil); forms != 1 {
				t.Errorf("%s request %d: %d prompt forms set, want exactly 1", m.Cell, i, forms)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDeterminism(t *testing.T) {
	a, err := LoadPaths([]string{"../../workloads/smoke"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadPaths([]string{"../../workloads/smoke"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i].Hash != b[i].Hash || !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("%s: two loads differ", a[i].Cell)
		}
		if h := Hash(a[i]); h != a[i].Hash {
			t.Errorf("%s: Hash() = %s, stored %s", a[i].Cell, h, a[i].Hash)
		}
	}
}

// write creates a workload file in a temp dir and returns its path.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const randomBase = `name: %s
dataset: {kind: random, input_tokens: 100, output_tokens: 20, seed: 5}
load: {requests: 10%s}
`

func TestSweepCells(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.yaml", `name: sw
dataset: {kind: random, input_tokens: 50, output_tokens: 10, seed: 9}
load: {requests: 20, concurrency: [16, 32], rate: [2.5, inf]}
`)
	ms, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Cell)
	}
	want := []string{"sw@c16@r2.5", "sw@c16@rinf", "sw@c32@r2.5", "sw@c32@rinf"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("cells = %v, want %v", names, want)
	}
	// Cells share the requests and differ in load, so every hash differs.
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Hash] {
			t.Errorf("%s: duplicate hash", m.Cell)
		}
		seen[m.Hash] = true
		if !reflect.DeepEqual(m.Requests[0].PromptIDs, ms[0].Requests[0].PromptIDs) {
			t.Errorf("%s: prompts differ between cells", m.Cell)
		}
	}
	if ms[0].Requests[19].Arrival != 8*time.Second || !math.IsInf(ms[1].Rate, 1) || ms[1].Requests[19].Arrival != 0 {
		t.Errorf("arrivals: r2.5 last %v, inf last %v", ms[0].Requests[19].Arrival, ms[1].Requests[19].Arrival)
	}
}

func TestDuplicateCellsAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", strings.Replace(randomBase, "%s", "same", 1))
	write(t, dir, "sub/b.yml", strings.Replace(randomBase, "%s", "same", 1))
	write(t, dir, "notes.txt", "not a workload")
	for i, f := range []string{"a.yaml", "sub/b.yml"} {
		p := filepath.Join(dir, f)
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "%s", []string{"", ", rate: 1"}[i], 1)), 0o644)
	}
	_, err := LoadPaths([]string{dir})
	if err == nil {
		t.Fatal("duplicate cell names accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, filepath.Join(dir, "sub/b.yml")+":1: ") || !strings.Contains(msg, filepath.Join(dir, "a.yaml")+":1") {
		t.Errorf("error does not name both files with lines: %s", msg)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
