package redact

import (
	"strings"
	"testing"
)

type valueDoc struct {
	Name   string
	Note   *string
	Tags   []string
	Values map[string]float64
	Env    map[string]string
	Nested []valueItem
	Any    any
	hidden string
}

type valueItem struct {
	Message string
	Count   int
}

// TestValue: every string reachable from the document is scrubbed (known
// values, credential shapes, values under a secret-looking key), numbers
// and unexported fields are left as they are.
func TestValue(t *testing.T) {
	const known = "s3cr3t-value-of-a-header"
	const gh = "ghp_abcdefghijklmnopqrstuvwxyz012345"
	note := "note with " + known
	d := &valueDoc{
		Name:   "cell " + gh,
		Note:   &note,
		Tags:   []string{"plain", known},
		Values: map[string]float64{"tpot_ms.p50": 12.5},
		Env:    map[string]string{"HF_TOKEN": "short", "env.PATH": "/usr/bin", "k-" + known: "v"},
		Nested: []valueItem{{Message: "Authorization: Bearer abcdefgh12345678", Count: 3}},
		Any:    "any " + gh,
		hidden: known,
	}
	NewScrubber(known).Value(d)
	all := strings.Join([]string{d.Name, *d.Note, strings.Join(d.Tags, " "), d.Nested[0].Message, d.Any.(string)}, "\n")
	for k, v := range d.Env {
		all += "\n" + k + "=" + v
	}
	if strings.Contains(all, known) || strings.Contains(all, gh) || strings.Contains(all, "abcdefgh12345678") {
		t.Errorf("a secret survived:\n%s", all)
	}
	if d.Env["HF_TOKEN"] != Placeholder || d.Env["env.PATH"] != "/usr/bin" || d.Tags[0] != "plain" {
		t.Errorf("env %v, tags %v", d.Env, d.Tags)
	}
	if d.Values["tpot_ms.p50"] != 12.5 || d.Nested[0].Count != 3 || d.hidden != known {
		t.Errorf("numbers or unexported fields changed: %+v", d)
	}
	var nilDoc *valueDoc
	NewScrubber(known).Value(nilDoc) // nil: nothing to do, no panic
}
