package pipeline

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/workload"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		i, n int
		bad  bool
	}{
		{"1/1", 1, 1, false}, {"2/4", 2, 4, false}, {"4/4", 4, 4, false},
		{"0/4", 0, 0, true}, {"5/4", 0, 0, true}, {"1/0", 0, 0, true}, {"x/2", 0, 0, true},
		{"3", 0, 0, true}, {"", 0, 0, true}, {"1/2/3", 0, 0, true},
	}
	for _, tc := range tests {
		i, n, err := ParseShard(tc.in)
		if (err != nil) != tc.bad || i != tc.i || n != tc.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, i, n, err)
		}
	}
}

// Shards partition the cells in cell-name order, whatever order the
// workload files were given in.
func TestShardPartitions(t *testing.T) {
	var ms []*workload.Manifest
	for _, c := range []string{"e", "a", "d", "b", "c"} {
		ms = append(ms, &workload.Manifest{Cell: c})
	}
	var got []string
	for i := 1; i <= 2; i++ {
		part, err := Shard(ms, i, 2)
		if err != nil {
			t.Fatal(err)
		}
		var cells []string
		for _, m := range part {
			cells = append(cells, m.Cell)
		}
		got = append(got, strings.Join(cells, ""))
	}
	if got[0] != "ace" || got[1] != "bd" {
		t.Errorf("shards = %q, want [ace bd]", got)
	}
	for _, bad := range [][2]int{{0, 2}, {3, 2}, {1, 0}} {
		if _, err := Shard(ms, bad[0], bad[1]); err == nil {
			t.Errorf("Shard(%d/%d) accepted", bad[0], bad[1])
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/2", "2/2", "0/1", "3/2", "a/b", "1/", "/2", "1/2/3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParseShard(s)
		if err == nil && (n < 1 || i < 1 || i > n) {
			t.Fatalf("ParseShard(%q) = %d, %d: out of range", s, i, n)
		}
	})
}
