package metrics

import (
	"slices"
	"testing"
)

func TestOrder(t *testing.T) {
	t.Parallel()
	all := All()
	if len(all) < 3 {
		t.Fatalf("catalogue of %d metrics", len(all))
	}
	first, second, last := all[0], all[1], all[len(all)-1]
	tests := []struct {
		name string
		set  []string
		want []string
	}{
		{"empty", nil, []string{}},
		{"catalogue order, not the set's", []string{last, second, first}, []string{first, second, last}},
		{"unknown ids last, alphabetically", []string{"zz_custom", first, "aa_custom"}, []string{first, "aa_custom", "zz_custom"}},
	}
	for _, tc := range tests {
		set := map[string]bool{}
		for _, id := range tc.set {
			set[id] = true
		}
		if got := Order(set); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
