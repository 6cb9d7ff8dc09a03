package verdict

import (
	"slices"
	"testing"
)

// TestCellNames: every cell of either arm once, sorted, whichever arm
// holds it and whatever the maps hold.
func TestCellNames(t *testing.T) {
	for _, tc := range []struct {
		a    map[string]int
		b    map[string]string
		want []string
	}{
		{nil, nil, []string{}},
		{map[string]int{"b": 1, "a": 2}, nil, []string{"a", "b"}},
		{nil, map[string]string{"z": ""}, []string{"z"}},
		{map[string]int{"c": 1, "a": 1}, map[string]string{"b": "", "a": ""}, []string{"a", "b", "c"}},
	} {
		if got := CellNames(tc.a, tc.b); !slices.Equal(got, tc.want) {
			t.Errorf("CellNames(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
