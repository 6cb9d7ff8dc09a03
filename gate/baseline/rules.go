package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/perfgate/perfgate/gate/result"
)

// SortRules returns a copy of rules sorted by metric, so the stored list
// and its hash do not depend on map order.
func SortRules(rules []result.Rule) []result.Rule {
	if len(rules) == 0 {
		return nil
	}
	out := append([]result.Rule(nil), rules...)
	sort.Slice(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out
}

// RulesHash is the sha256 of the sorted rules' JSON: two promotions under
// the same gate rules carry the same hash. Empty for no rules.
func RulesHash(rules []result.Rule) string {
	if len(rules) == 0 {
		return ""
	}
	data, err := json.Marshal(SortRules(rules))
	if err != nil {
		return "" // a slice of plain structs always encodes
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
