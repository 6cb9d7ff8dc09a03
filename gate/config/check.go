package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"gopkg.in/yaml.v3"
)

// checkFile parses a perfgate.yaml with yaml.v3 and checks it against the
// schema before viper reads it: viper forgets line numbers and folds key
// case, so unknown keys, duplicate keys and values of the wrong shape are
// reported here as "file:line: key: message". It returns the line of every
// key the file sets, for provenance in `perfgate config` and in errors.
func checkFile(name string, data []byte) (map[string]int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lines := map[string]int{}
	if len(doc.Content) == 0 { // empty file: nothing set
		return lines, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the file must be a mapping of settings (profile: ..., server: ...)", name, root.Line)
	}
	c := checker{file: name, lines: lines}
	c.mapping(root, "")
	return lines, errors.Join(c.errs...)
}

type checker struct {
	file  string
	lines map[string]int
	errs  []error
}

func (c *checker) errorf(n *yaml.Node, key, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s:%d: %s: %s", c.file, n.Line, key, fmt.Sprintf(format, args...)))
}

// mapping checks the keys of a section. prefix is "" or "server." etc.
func (c *checker) mapping(n *yaml.Node, prefix string) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		if k.Kind != yaml.ScalarNode {
			c.errorf(k, prefix+"?", "keys must be plain names")
			continue
		}
		if seen[k.Value] {
			c.errorf(k, key, "set twice in the same section")
			continue
		}
		seen[k.Value] = true
		if _, old := renamed[key]; old {
			c.errorf(k, key, "%s", renamedMsg(key))
			continue
		}
		s, ok := schemaByKey[key]
		if !ok {
			msg := "unknown key"
			if hint := suggest(key); hint != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", hint)
			}
			c.errorf(k, key, "%s", msg)
			continue
		}
		c.lines[key] = k.Line
		c.value(v, s)
	}
}

// value checks that a node has the shape the setting needs.
func (c *checker) value(v *yaml.Node, s setting) {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return // "key:" with no value keeps the default
	}
	switch s.kind {
	case kindSection:
		if v.Kind != yaml.MappingNode {
			c.errorf(v, s.key, "must be a section (a mapping), got %s", describe(v))
			return
		}
		c.mapping(v, s.key+".")
	case kindList, kindArgv:
		if v.Kind == yaml.SequenceNode {
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					c.errorf(item, s.key, "list items must be strings, got %s", describe(item))
				}
			}
			return
		}
		if s.kind == kindArgv && v.Kind == yaml.ScalarNode {
			if _, err := SplitArgv(v.Value); err != nil {
				c.errorf(v, s.key, "%v", err)
			}
			return
		}
		c.errorf(v, s.key, "must be a list, got %s", describe(v))
	case kindFloatMap:
		c.metricMap(v, s.key, metricMapOf(s.key))
	default:
		if v.Kind != yaml.ScalarNode {
			c.errorf(v, s.key, "must be %s, got %s", s.kind, describe(v))
			return
		}
		if err := parseScalar(s.kind, v.Value); err != nil {
			c.errorf(v, s.key, "%v", err)
		}
	}
}

// metricIDPattern is the shape of a metric id (tpot_ms.p50, ttft_ms.p99.9,
// success_rate). Keys of other shapes are refused here, with their line:
// viper would split a key holding its internal delimiter "::" into nested
// maps and fail later with no line at all.
var metricIDPattern = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_.]+)?$`)

// metricMap describes one of the config's maps from metric id to number:
// policy.tolerances and policy.assumed_between. The file check and the
// environment parser read both through it, so the two maps differ only in
// what is written here.
type metricMap struct {
	// star allows the key "*" (every metric).
	star bool
	// mapping, keyNote, valueNote and envUsage are the words of the errors.
	mapping, keyNote, valueNote, envUsage string
	// parse reads one value for metric m (zero Metric for "*").
	parse func(m metrics.Metric, text string) (float64, error)
}

var (
	toleranceMap = metricMap{
		mapping:   "must be a mapping of metric id to tolerance (tpot_ms.p50: 3%%), got %s",
		keyNote:   "key %s is not a metric id such as tpot_ms.p50",
		valueNote: "must be a tolerance such as 3%%, got %s",
		envUsage:  "%q: want metric=tolerance entries separated by commas (tpot_ms.p50=3%%)",
		parse: func(m metrics.Metric, text string) (float64, error) {
			return metrics.ParseTolerance(text, m.Unit == "ratio")
		},
	}
	// betweenMap: between-session CVs, keyed by metric id or "*", 0 allowed.
	betweenMap = metricMap{
		star:      true,
		mapping:   "must be a mapping of metric id (or \"*\") to a between-session CV (tpot_ms.p50: 2%%), got %s",
		keyNote:   "key %s is not a metric id such as tpot_ms.p50, nor \"*\"",
		valueNote: "must be a CV such as 2%%, got %s",
		envUsage:  "%q: want metric=CV entries separated by commas (*=0,ttft_ms.p99=4%%)",
		parse:     func(_ metrics.Metric, text string) (float64, error) { return parseBetweenCV(text) },
	}
)

// assumedBetweenKey is the one map of the policy that is not of
// tolerances.
const assumedBetweenKey = "policy.assumed_between"

// metricMapOf is the description of the map at key.
func metricMapOf(key string) metricMap {
	if key == assumedBetweenKey {
		return betweenMap
	}
	return toleranceMap
}

// validKey reports whether k may be a key of the map.
func (mm metricMap) validKey(k string) bool {
	return (mm.star && k == "*") || metricIDPattern.MatchString(k)
}

// lookup is the metric of key k and whether it is known ("*" is, where
// allowed).
func (mm metricMap) lookup(k string) (metrics.Metric, bool) {
	if mm.star && k == "*" {
		return metrics.Metric{}, true
	}
	return metrics.Lookup(k)
}

// metricMap checks a mapping at key of the file: every key a known metric
// id (or "*" where allowed), every value one mm parses.
func (c *checker) metricMap(v *yaml.Node, key string, mm metricMap) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v, key, mm.mapping, describe(v))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode || !mm.validKey(k.Value) {
			c.errorf(k, key, mm.keyNote, describe(k))
			continue
		}
		id := key + "." + k.Value
		if seen[k.Value] {
			c.errorf(k, id, "set twice")
			continue
		}
		seen[k.Value] = true
		m, known := mm.lookup(k.Value)
		if !known {
			c.errorf(k, id, "unknown metric id %q", k.Value)
			continue
		}
		if val.Kind != yaml.ScalarNode {
			c.errorf(val, id, mm.valueNote, describe(val))
			continue
		}
		if _, err := mm.parse(m, val.Value); err != nil {
			c.errorf(val, id, "%v", err)
		}
	}
}

// parseBetweenCV reads a between-session CV: "2%", "0.5pp" or a bare
// fraction, at least 0 and below 1.
func parseBetweenCV(text string) (float64, error) {
	t := strings.TrimSpace(text)
	scale := 1.0
	for _, unit := range []string{"%", "pp"} {
		if num, ok := strings.CutSuffix(t, unit); ok {
			t, scale = strings.TrimSpace(num), 0.01
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a CV such as 2%% or 0.02", text)
	}
	f *= scale
	if !(f >= 0 && f < 1) {
		return 0, fmt.Errorf("%s: a between-session CV is at least 0 and below 1 (100%%)", text)
	}
	return f, nil
}

// parseScalar checks that text is a valid value of kind k (files and
// environment variables alike).
func parseScalar(k kind, text string) error {
	var err error
	switch k {
	case kindInt:
		_, err = strconv.Atoi(text)
	case kindFloat:
		_, err = strconv.ParseFloat(text, 64)
	case kindBool:
		_, err = strconv.ParseBool(text)
	case kindDuration:
		_, err = time.ParseDuration(text)
	case kindArgv:
		_, err = SplitArgv(text)
	}
	if err != nil {
		return fmt.Errorf("%q is not %s", text, k)
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}
