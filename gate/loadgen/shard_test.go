package loadgen

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
		{"0/4", 0, 0, true}, {"5/4", 0, 0, true}, {"1/0", 0, 0, true}, {"x/2", 0, 0, true}, {"3", 0, 0, true}, {"", 0, 0, true},
	}
	for _, tc := range tests {
		i, n, err := ParseShard(tc.in)
		if (err != nil) != tc.bad || i != tc.i || n != tc.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, i, n, err)
		}
	}
}

func TestShardPartitions(t *testing.T) {
	var ms []*workload.Manifest
	for _, c := range []string{"e", "a", "d", "b", "c"} {
		ms = append(ms, &workload.Manifest{Cell: c})
	}
	var got []string
	for i := 1; i <= 2; i++ {
		var cells []string
		for _, m := range Shard(ms, i, 2) {
			cells = append(cells, m.Cell)
		}
		got = append(got, strings.Join(cells, ""))
	}
	if got[0] != "ace" || got[1] != "bd" {
		t.Errorf("shards = %q, want [ace bd]", got)
	}
}
