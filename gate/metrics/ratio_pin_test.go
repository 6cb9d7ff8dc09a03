package metrics

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// result.Validate refuses ratio values above 1 by a list of its own (it
// sits below the catalogue); this pins that list to the catalogue's
// "ratio" unit.
func TestResultRatioMetricsMatchTheCatalogue(t *testing.T) {
	var ratios []string
	for _, id := range All() {
		if m, ok := Lookup(id); ok && m.Unit == "ratio" {
			name, _, _ := strings.Cut(id, ".")
			if !slices.Contains(ratios, name) {
				ratios = append(ratios, name)
			}
		}
	}
	slices.Sort(ratios)
	have := slices.Clone(result.RatioMetrics)
	slices.Sort(have)
	if !slices.Equal(ratios, have) {
		t.Errorf("result.RatioMetrics %v, catalogue's ratio metrics %v", have, ratios)
	}
}
