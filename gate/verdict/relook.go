package verdict

import "github.com/perfgate/perfgate/gate/result"

// LookOf is the look a comparison of candidate results judged before must
// use (perfgate gate --from, compare, after perfgate merge): the latest
// look any of them was judged at and the most looks any gate run declared,
// from result.Result.Looks. Re-judging results of a three-look gate at the
// full alpha would spend three times the alpha of its last look on trials
// that were added because earlier looks were undecided.
//
// A result without Looks (written by perfgate run, an importer, or a gate
// before the field existed) counts as look 1 of 1, unless some trial was
// added at a later look (Trial.Look > 0): the gate that added it declared
// at least p.MaxLooks looks, which is then assumed, since the number it
// declared is not recorded.
func LookOf(candidates []*result.Result, p Policy) Look {
	look := Look{Index: 1, Max: 1}
	for _, r := range candidates {
		if r == nil {
			continue
		}
		if r.Looks != nil {
			look.Index = max(look.Index, r.Looks.Index)
			look.Max = max(look.Max, r.Looks.Max)
		}
		for _, t := range r.Trials {
			look.Index = max(look.Index, t.Look+1)
			if r.Looks == nil && t.Look > 0 {
				look.Max = max(look.Max, p.MaxLooks)
			}
		}
	}
	look.Max = max(look.Max, look.Index)
	return look
}
