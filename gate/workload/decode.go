package workload

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"gopkg.in/yaml.v3"
)

// Error is one problem in a workload or dataset file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
	// Warning marks a problem that does not invalidate the file (an
	// optional dataset that is missing).
	Warning bool
}

func (e *Error) Error() string {
	if e.Warning {
		return fmt.Sprintf("%s:%d: warning: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxErrors caps the problems reported per file: past that the file is
// probably not a workload at all.
const maxErrors = 20

// decoder walks a yaml.v3 node tree, collecting errors with line numbers.
// The Node API is used instead of yaml.Unmarshal into structs because
// struct decoding loses the line of most problems (ranges, unknown metric
// ids, missing files) and its strict mode stops at the first one.
type decoder struct {
	file string
	errs []*Error
}

func (d *decoder) errorf(line int, format string, args ...any) {
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, &Error{File: d.file, Line: max(line, 1), Msg: fmt.Sprintf(format, args...)})
	}
}

func (d *decoder) isMapping(n *yaml.Node, what string) bool {
	if n.Kind != yaml.MappingNode {
		d.errorf(n.Line, "%s must be a mapping, got %s", what, describe(n))
		return false
	}
	return true
}

// field is one key of a mapping with its value node.
type field struct {
	key   string
	line  int
	value *yaml.Node
}

// mapping returns the fields of a mapping node, reporting duplicate keys
// and keys not in allowed. what names the mapping in messages.
func (d *decoder) mapping(n *yaml.Node, what string, allowed ...string) []field {
	if !d.isMapping(n, what) {
		return nil
	}
	var out []field
	d.pairs(n, what, func(k, v *yaml.Node) {
		if !slices.Contains(allowed, k.Value) {
			d.errorf(k.Line, "%s: unknown key %q (allowed: %s)", what, k.Value, strings.Join(allowed, ", "))
			return
		}
		out = append(out, field{key: k.Value, line: k.Line, value: v})
	})
	return out
}

// pairs calls f with each key and value of mapping node n whose key is a
// plain string met for the first time, reporting the others; what names
// the mapping in messages.
func (d *decoder) pairs(n *yaml.Node, what string, f func(k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(k.Line, "%s: keys must be plain strings", what)
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			d.errorf(k.Line, "%s: duplicate key %q (first at line %d)", what, k.Value, prev)
			continue
		}
		seen[k.Value] = k.Line
		f(k, v)
	}
}

// describe names a node's type for "must be X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing"
	case "!!int":
		return "integer " + n.Value
	case "!!float":
		return "number " + n.Value
	case "!!bool":
		return "boolean " + n.Value
	}
	return strconv.Quote(n.Value)
}

func (d *decoder) scalar(n *yaml.Node, key string) bool {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n.Line, "%s must be a single value, got %s", key, describe(n))
		return false
	}
	return true
}

func (d *decoder) str(n *yaml.Node, key string) string {
	if !d.scalar(n, key) {
		return ""
	}
	if n.ShortTag() != "!!str" {
		d.errorf(n.Line, "%s must be a string, got %s", key, describe(n))
		return ""
	}
	return n.Value
}

// oneOf decodes a string that must be one of allowed: "" with an error
// naming them ("api must be completions or chat, got \"x\"") otherwise.
func (d *decoder) oneOf(n *yaml.Node, key string, allowed ...string) string {
	n0 := len(d.errs)
	s := d.str(n, key)
	if len(d.errs) > n0 {
		return ""
	}
	if !slices.Contains(allowed, s) {
		list := strings.Join(allowed[:len(allowed)-1], ", ") + " or " + allowed[len(allowed)-1]
		d.errorf(n.Line, "%s must be %s, got %q", key, list, s)
		return ""
	}
	return s
}

// text decodes any non-null scalar as its literal text: a name, path or
// hash that happens to look like a number (a sha256 of only digits) is
// still text.
func (d *decoder) text(n *yaml.Node, key string) string {
	if !d.scalar(n, key) {
		return ""
	}
	if n.ShortTag() == "!!null" {
		d.errorf(n.Line, "%s must be a string, got nothing", key)
		return ""
	}
	return n.Value
}

// integer decodes an int in [lo, hi].
func (d *decoder) integer(n *yaml.Node, key string, lo, hi int) int {
	if !d.scalar(n, key) {
		return 0
	}
	// YAML tags 08 and 09 as floats (they are not octal): let intLiteral
	// explain the leading zero instead of "must be an integer".
	tag := n.ShortTag()
	if tag != "!!int" && !(tag == "!!float" && strings.Trim(n.Value, "0123456789_+-") == "") {
		d.errorf(n.Line, "%s must be an integer, got %s", key, describe(n))
		return 0
	}
	v, err := intLiteral(n.Value)
	if err != nil {
		d.errorf(n.Line, "%s: %v", key, err)
		return 0
	}
	if v < int64(lo) || v > int64(hi) {
		d.errorf(n.Line, "%s must be an integer in [%d, %d], got %s", key, lo, hi, n.Value)
		return 0
	}
	return int(v)
}

// number decodes a finite float (integers accepted) checked by ok, whose
// failure is described by want ("> 0", "in [0, 1)").
func (d *decoder) number(n *yaml.Node, key, want string, ok func(float64) bool) float64 {
	if !d.scalar(n, key) {
		return 0
	}
	tag := n.ShortTag()
	if tag != "!!int" && tag != "!!float" {
		d.errorf(n.Line, "%s must be a number %s, got %s", key, want, describe(n))
		return 0
	}
	v, err := floatLiteral(n.Value)
	var style *styleError
	if errors.As(err, &style) {
		d.errorf(n.Line, "%s: %v", key, err)
		return 0
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || !ok(v) {
		d.errorf(n.Line, "%s must be a number %s, got %s", key, want, n.Value)
		return 0
	}
	return v
}

// positiveOrInf decodes a number > 0 or the word inf (also YAML's .inf).
func (d *decoder) positiveOrInf(n *yaml.Node, key string) float64 {
	if !d.scalar(n, key) {
		return 0
	}
	if v := strings.ToLower(n.Value); v == "inf" || v == ".inf" || v == "+inf" || v == "+.inf" {
		return math.Inf(1)
	}
	return d.number(n, key, "> 0 or inf", func(v float64) bool { return v > 0 })
}

func (d *decoder) boolean(n *yaml.Node, key string) bool {
	if !d.scalar(n, key) {
		return false
	}
	if n.ShortTag() != "!!bool" {
		d.errorf(n.Line, "%s must be true or false, got %s", key, describe(n))
		return false
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

// duration decodes a Go duration with a unit ("10m", "90s") > 0.
func (d *decoder) duration(n *yaml.Node, key string) time.Duration {
	if !d.scalar(n, key) {
		return 0
	}
	v, err := time.ParseDuration(n.Value)
	if n.ShortTag() != "!!str" || err != nil {
		d.errorf(n.Line, "%s must be a duration with a unit such as 10m or 90s, got %s", key, describe(n))
		return 0
	}
	if v <= 0 {
		d.errorf(n.Line, "%s must be > 0, got %s", key, n.Value)
		return 0
	}
	return v
}

// list returns the items of a sequence, or the node itself when a single
// value is written (concurrency: 16 and concurrency: [16] are the same).
func (d *decoder) list(n *yaml.Node, key string) []*yaml.Node {
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			d.errorf(n.Line, "%s: an empty list sweeps nothing", key)
		}
		return n.Content
	}
	return []*yaml.Node{n}
}

// tolerance decodes a gate rule's tolerance with metrics.ParseTolerance,
// the one reading of a tolerance shared with perfgate.yaml: "3%" (0.03),
// "0.5pp" for ratio metrics (0.005), or a bare fraction below 1 ("0.03").
func (d *decoder) tolerance(n *yaml.Node, ratio bool) float64 {
	if !d.scalar(n, "tolerance") {
		return 0
	}
	v, err := metrics.ParseTolerance(n.Value, ratio)
	if err != nil {
		d.errorf(n.Line, "tolerance: %v", err)
		return 0
	}
	return v
}

func itoa(v int) string     { return strconv.Itoa(v) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
