package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// kind is the shape of a setting's value, used to check files with line
// numbers before viper sees them and to parse environment variables.
type kind int

const (
	kindString kind = iota
	kindInt
	kindFloat
	kindBool
	kindDuration
	kindList     // []string: a YAML sequence, or comma-separated in env/flags
	kindArgv     // Argv: a YAML sequence, or a shell-like string
	kindFloatMap // map[string]float64: free keys, number values
	kindSection  // a nested struct
)

func (k kind) String() string {
	return [...]string{"a string", "an integer", "a number", "true or false", "a duration (e.g. 90s, 10m)",
		"a list", "a command (list or string)", "a map of numbers", "a section"}[k]
}

// setting is one key of the schema, derived from Config's mapstructure tags
// so the schema cannot drift from the struct.
type setting struct {
	key   string // dotted path, e.g. "server.ready_timeout"
	kind  kind
	index []int // reflect field index path into Config
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	argvType     = reflect.TypeOf(Argv(nil))
)

// schema lists every setting of Config, sections included, in struct order.
var schema = buildSchema(reflect.TypeOf(Config{}), "", nil)

// schemaByKey indexes schema by key.
var schemaByKey = func() map[string]setting {
	m := make(map[string]setting, len(schema))
	for _, s := range schema {
		m[s.key] = s
	}
	return m
}()

func buildSchema(t reflect.Type, prefix string, index []int) []setting {
	var out []setting
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("mapstructure")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		idx := append(append([]int(nil), index...), i)
		k := kindOf(f.Type)
		out = append(out, setting{key: key, kind: k, index: idx})
		if k == kindSection {
			out = append(out, buildSchema(f.Type, key+".", idx)...)
		}
	}
	return out
}

func kindOf(t reflect.Type) kind {
	switch {
	case t == durationType:
		return kindDuration
	case t == argvType:
		return kindArgv
	}
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Int, reflect.Int64:
		return kindInt
	case reflect.Float64:
		return kindFloat
	case reflect.Bool:
		return kindBool
	case reflect.Slice:
		return kindList
	case reflect.Map:
		return kindFloatMap
	case reflect.Struct:
		return kindSection
	}
	panic("config: unsupported field type " + t.String())
}

// Keys returns every leaf setting key ("server.url", ...), sorted. Flag
// bindings and documentation use it.
func Keys() []string {
	var keys []string
	for _, s := range schema {
		if s.kind != kindSection {
			keys = append(keys, s.key)
		}
	}
	sort.Strings(keys)
	return keys
}

// suggest returns the known key closest to an unknown one, for "did you
// mean" hints, or "" when nothing is close.
func suggest(unknown string) string {
	best, bestDist := "", 4
	for _, s := range schema {
		if d := editDistance(strings.ToLower(unknown), s.key); d < bestDist {
			best, bestDist = s.key, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// renamed maps settings that no longer exist to the ones that replaced
// them. An old key is refused, never read under its new meaning or
// ignored: policy.min_trials was renamed because the verdict's own
// min_trials means something else (fewer valid trials than this are
// low-confidence), and silently dropping a file's setting would change a
// gate's trial count without a word.
var renamed = map[string]string{
	"policy.min_trials": "trials.min",
}

// renamedMsg is the error for an old key.
func renamedMsg(old string) string {
	return fmt.Sprintf("renamed to %s (trials per workload before the first comparison); rename the key", renamed[old])
}
