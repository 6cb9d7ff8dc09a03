package result

import "fmt"

// Looks says which look of an adaptive gate run last judged a result: perfgate
// gate compares, adds trials to undecided workloads and compares again, up
// to Max looks declared before the first, and every look tests at alpha /
// Max (see verdict.Look). A result re-judged later (gate --from, compare,
// after perfgate merge) must be tested at that same alpha: its extra
// trials were chosen by looking at the data, and judging them at the full
// alpha would spend more than the bound allows.
//
// Result.Looks is nil for results no gate judged (perfgate run, imports)
// and for files written before the field existed; trials still carry the
// look they were added in (Trial.Look).
type Looks struct {
	// Index is the 1-based look of the comparison that judged the result.
	Index int `json:"index"`
	// Max is the number of looks the gate run declared.
	Max int `json:"max"`
}

// Combine is the looks of a result merged from parts judged at a and b
// (shards of one gate run): the later look and the larger declared count,
// so the merged result is tested at the smallest alpha any part was.
func (a *Looks) Combine(b *Looks) *Looks {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		c := *b
		return &c
	case b == nil:
		c := *a
		return &c
	}
	return &Looks{Index: max(a.Index, b.Index), Max: max(a.Max, b.Max)}
}

// validate checks 1 <= Index <= Max.
func (a *Looks) validate() error {
	if a == nil {
		return nil
	}
	if a.Index < 1 || a.Max < a.Index {
		return fmt.Errorf("looks: index %d of %d: want 1 <= index <= max", a.Index, a.Max)
	}
	return nil
}
