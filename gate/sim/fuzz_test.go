package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParsePrompt: any body either parses into non-nil prompts or is an
// error, never a panic; strings always tokenize to something countable.
func FuzzParsePrompt(f *testing.F) {
	for _, s := range []string{`"hello"`, `[1,2,3]`, `["a","b c"]`, `[[1,2],[3]]`, `[]`, `null`, `[1,"a"]`,
		`[-1]`, `{"a":1}`, `[[1,-2]]`, `"\u00e9t\u00e9"`, `[1e3]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		prompts, err := parsePrompt(json.RawMessage(raw))
		if err != nil {
			return
		}
		if len(prompts) == 0 {
			t.Fatalf("%q parsed to no prompts without an error", raw)
		}
	})
}

// FuzzTokenize: the token count never exceeds the byte count and every
// non-empty text has at least one token.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "a", " the cat", "x\n\ny", "  ", "supercalifragilistic", "日本語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := len(tokenize(s))
		if n > len(s) || (len(s) > 0 && n == 0) {
			t.Fatalf("tokenize(%q) = %d tokens", s, n)
		}
		if strings.TrimSpace(s) == s && !strings.ContainsAny(s, " \n\t\r") && n != (len(s)+3)/4 {
			t.Fatalf("a %d-byte word gave %d tokens", len(s), n)
		}
	})
}

// FuzzConfigJSON: POST /sim/config bodies either fail to decode, fail
// validation, or give a config that validates.
func FuzzConfigJSON(f *testing.F) {
	for _, s := range []string{`{"decode_scale":1.3}`, `{"faults":{"stall_for":"5ms"}}`, `{"step_base":1000}`,
		`{"step_base":"x"}`, `{"jitter_cv":-1}`, `{}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cfg, _ := Preset("fast")
		if json.Unmarshal([]byte(body), &cfg) != nil || cfg.Validate() != nil {
			return
		}
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil || back != cfg {
			t.Fatalf("round trip of %s: %v", b, err)
		}
	})
}
