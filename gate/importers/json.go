package importers

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/vllmbench"
)

// decode reads a JSON object as Python's json module writes it (NaN and
// Infinity included), naming the file in errors.
func decode(name string, data []byte) (map[string]any, error) {
	m, err := vllmbench.DecodePython(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// get follows path through nested objects; nil when any step is missing.
func get(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func num(v any, path ...string) (float64, bool) {
	return vllmbench.Number(get(v, path...))
}

func str(v any, path ...string) string {
	s, _ := get(v, path...).(string)
	return s
}

func list(v any, path ...string) []any {
	l, _ := get(v, path...).([]any)
	return l
}

// count reads a non-negative whole number.
func count(v any, path ...string) (int, bool) {
	f, ok := num(v, path...)
	if !ok || f < 0 || f > 1e12 || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}

// setIf stores x under id when the file had a finite value.
func setIf(v map[string]float64, id string, x float64, ok bool) {
	if ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
		v[id] = x
	}
}
