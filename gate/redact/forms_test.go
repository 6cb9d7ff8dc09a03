package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScrubberEscapedForms is issue 20 item 11: a secret holding " or \
// leaked in the JSON-escaped form of a vLLM error body and in the Python
// repr of a log line, since the Scrubber searched only for the value as
// it is and its URL form.
func TestScrubberEscapedForms(t *testing.T) {
	const secret = `pa"ss\wörd'1`
	js, _ := json.Marshal(map[string]string{"detail": "bad key " + secret})
	tests := []struct{ name, text string }{
		{"raw", "key " + secret + " rejected"},
		// Python json.dumps: ensure_ascii, so ö is \u00f6.
		{"python json", `{"detail": "bad key pa\"ss\\w\u00f6rd'1"}`},
		// encoding/json (perfgate's own files), < > & escaped or not.
		{"go json", string(js)},
		// A JSON error body quoted into another JSON string.
		{"json in json", `{"error": "{\"detail\": \"pa\\\"ss\\\\w\\u00f6rd'1\"}"}`},
		// Python repr of a str holding both quotes: single-quoted, \' and \\.
		{"python repr", `headers={'x-key': 'pa"ss\\wörd\'1'}`},
		{"url", "GET /v1?k=pa%22ss%5Cw%C3%B6rd%271"},
	}
	s := NewScrubber(secret)
	for _, tt := range tests {
		got := s.String(tt.text)
		if !strings.Contains(got, Placeholder) || strings.Contains(got, "ss\\") || strings.Contains(got, "rd'1") || strings.Contains(got, "rd\\'1") || strings.Contains(got, "rd%271") {
			t.Errorf("%s: %q scrubbed to %q", tt.name, tt.text, got)
		}
	}
	// An escaped form of a short value is as short: nothing to search.
	if NewScrubber(`a"b`).Len() != 0 {
		t.Errorf("a value under MinScrubLen got forms: %d", NewScrubber(`a"b`).Len())
	}
}

// TestScrubberIdempotent: scrubbing twice changes nothing more, also
// when a placeholder and the text beside it spell a value again.
func TestScrubberIdempotent(t *testing.T) {
	tests := []struct {
		values []string
		text   string
	}{
		{[]string{"d]abcd"}, "x d]abcd abcd"},
		{[]string{"]abcdef", "d]abcdef"}, "hunter22 ]abcdef d]abcdef"},
		{[]string{"hunter22", "r22abc"}, "hunter22abc"},
		// Only placeholder text: never searched for.
		{[]string{"redacted", "d][redac"}, "[redacted][redacted] redacted"},
	}
	for _, tt := range tests {
		s := NewScrubber(tt.values...)
		once := s.String(tt.text)
		if twice := s.String(once); twice != once {
			t.Errorf("%q with %q: %q, then %q", tt.text, tt.values, once, twice)
		}
	}
}

// FuzzScrubber: the known value never survives, in any of its forms,
// and scrubbing is idempotent.
func FuzzScrubber(f *testing.F) {
	f.Add(`pa"ss\word`, `{"detail": "pa\"ss\\word"} 'pa"ss\\word'`)
	f.Add("d]abcd", "x d]abcd abcd [redacted]")
	f.Add("hunter22", "Authorization: Bearer hunter22hunter22")
	f.Fuzz(func(t *testing.T, value, text string) {
		s := NewScrubber(value)
		once := s.String(text)
		if twice := s.String(once); twice != once {
			t.Fatalf("not idempotent: %q -> %q -> %q", text, once, twice)
		}
		if len(value) >= MinScrubLen && !placeholderOnly(value) {
			for _, fm := range forms(value) {
				if strings.Contains(once, fm) {
					t.Fatalf("form %q of %q survives in %q", fm, value, once)
				}
			}
		}
	})
}

// BenchmarkScrubberLog is the cost of scrubbing a server's log as the
// launcher does: 64 KiB of log lines against ten known secrets, each in
// its escaped forms.
func BenchmarkScrubberLog(b *testing.B) {
	var vals []string
	for i := 0; i < 10; i++ {
		vals = append(vals, strings.Repeat(string(rune('a'+i)), 4)+`"secret\value-`+strings.Repeat("x", i))
	}
	s := NewScrubber(vals...)
	line := "INFO 03-15 10:15:00 engine.py:123] Avg prompt throughput: 1234.5 tokens/s, Running: 8 reqs\n"
	log := strings.Repeat(line, (64<<10)/len(line))
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.String(log)
	}
}

// TestTextPrefilters: the cheap checks that skip Text's expressions
// never skip text they would change: every shape, scheme and name, in
// odd cases and with the Unicode letters that fold or upper-case into
// ASCII ones.
func TestTextPrefilters(t *testing.T) {
	for _, in := range []string{
		"x ghs_16C7e42F292c6912E7710c838347Ae178B4a y",
		"AUTHORIZATION: BEARER abcdefgh1234",
		"authorization: bAsIc QWxhZGRpbjpvcGVu",
		"x-api-KEY: hunter22",
		"MYSQL_PWD=hunter22",
		"GITHUB_PAT=hunter22",
		"baſic abcdefgh12345678", // (?i) folds ſ to s
		"tokın=hunter22 token=x", // ı upper-cases to I
		"see https://user:pw@h.example/",
	} {
		if Text(in) == in {
			t.Errorf("Text(%q) hid nothing", in)
		}
	}
}

func TestJSONCredentials(t *testing.T) {
	v := map[string]any{
		"priority": 1.0, "bos_token": "<s>", "max_tokens": "5",
		"metadata": map[string]any{"client_secret": "hunter2", "user": "alice", "api_key": ""},
		"tags":     []any{"plain", openai, map[string]any{"x-api-key": "k"}},
	}
	got := strings.Join(JSONCredentials(v, "extra_body"), " ")
	if want := "extra_body.metadata.client_secret extra_body.tags[1] extra_body.tags[2].x-api-key"; got != want {
		t.Errorf("JSONCredentials = %q, want %q", got, want)
	}
}
