package report

import (
	"regexp"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "llama-3.1-8b", "llama-3.1-8b"},
		{"table pipe", "a|b", `a\|b`},
		{"html closes our details", "</details><script>x</script>", "&lt;/details&gt;&lt;script&gt;x&lt;/script&gt;"},
		{"newline would end the table row", "line1\nline2\r\nline3\rx", "line1 line2 line3 x"},
		{"code span", "`rm -rf`", "\\`rm -rf\\`"},
		{"link", "[click](http://evil)", `\[click\](http://evil)`},
		{"image", "![x](y)", `!\[x\](y)`},
		{"mention", "@org/team", "&#64;org/team"},
		{"entity stays literal", "&amp;", "&amp;amp;"},
		{"emphasis", "*bold* _it_ ~~s~~", `\*bold\* \_it\_ \~\~s\~\~`},
		{"heading at line start", "# title", `\# title`},
		{"backslash", `a\|b`, `a\\\|b`},
		{"control chars dropped", "a\x00b\x1bc", "abc"},
		{"bidi override dropped", "abc\u202edef", "abcdef"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"unicode kept", "模型-ä", "模型-ä"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestEscapeInvariants checks, for hostile inputs, the properties the
// report relies on rather than exact output.
func TestEscapeInvariants(t *testing.T) {
	nasty := []string{
		"</details>\n\n# Pass\n| a | b |\n|---|---|",
		"```\n<!-- perfgate:prod -->\n```",
		"{\"error\":\"CUDA out of memory\"}\r\n\r\n<img src=x onerror=alert(1)>",
		strings.Repeat("|`<>[]", 1000),
	}
	for _, in := range nasty {
		got := Escape(in)
		if strings.ContainsAny(got, "\n\r<>") {
			t.Errorf("Escape(%q) = %q: contains a line break or angle bracket", in, got)
		}
		for i := 0; i < len(got); i++ {
			switch got[i] {
			case '|', '`', '[', ']':
				if i == 0 || got[i-1] != '\\' {
					t.Errorf("Escape(%q): unescaped %q at %d", in, got[i], i)
				}
			}
		}
	}
}

func TestCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"results/a.json", "`results/a.json`"},
		{"a`b", "`a\u02cbb`"},
		{"a|b\nc", "`a\u2502b c`"},
		{"", "` `"},
	}
	for _, tt := range tests {
		if got := Code(tt.in); got != tt.want {
			t.Errorf("Code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"模型模型", 3, "模型…"},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		if got := Truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a|b", "</details>", "`x`", "[a](b)", "@x", "\r\n", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := Escape(in)
		if strings.ContainsAny(got, "\n\r<>") {
			t.Fatalf("Escape(%q) = %q: line break or angle bracket survived", in, got)
		}
		// Every structural character must be preceded by a backslash that
		// is not itself escaped.
		bs := 0
		for _, c := range []byte(got) {
			switch c {
			case '\\':
				bs++
				continue
			case '|', '`', '[', ']':
				if bs%2 == 0 {
					t.Fatalf("Escape(%q) = %q: unescaped %q", in, got, c)
				}
			}
			bs = 0
		}
	})
}

func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{"short|<chat>", "</summary></details>", "`x`", "[a](b)", "@team", "a\nb", "\xff", "&amp;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := HTMLText(in)
		// Outside our numeric entities ("&#60;") no character is one
		// HTML or markdown interprets.
		rest := regexp.MustCompile(`&#[0-9]+;`).ReplaceAllString(got, "")
		if strings.ContainsAny(rest, "\n\r<>&\"'@|`[]*_~#!\\") {
			t.Fatalf("HTMLText(%q) = %q: a structural character survived", in, got)
		}
	})
}
