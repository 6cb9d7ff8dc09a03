package redact

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// forms returns the ways a secret value v is spelled in text that quoted
// or escaped it, v itself first. A Scrubber searches for each, because a
// value with a quote or a backslash in it does not appear as itself in
// the text perfgate records most: vLLM's error bodies are JSON (Python's
// json.dumps, ASCII only), its log lines print Python reprs, a header
// echoed into a query string is percent-encoded, and perfgate's own JSON
// files escape < > & as well. An error body quoted into another JSON
// string escapes twice.
func forms(v string) []string {
	py := pyJSON(v)
	return []string{
		v,
		url.QueryEscape(v),
		goJSON(v, false),
		goJSON(v, true),
		py,
		pyJSON(py),
		pyRepr(v),
	}
}

// goJSON is v inside a JSON string as encoding/json writes it, with or
// without its HTML escaping of < > &.
func goJSON(v string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		return v
	}
	s := strings.TrimSuffix(b.String(), "\n")
	return s[1 : len(s)-1]
}

// pyJSON is v inside a JSON string as Python's json.dumps writes it by
// default (ensure_ascii): everything outside ASCII as \uXXXX, in UTF-16
// surrogate pairs beyond the basic plane.
func pyJSON(v string) string {
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// pyRepr is v inside the quotes of Python's repr(str): backslashes
// doubled, the quote Python chose (single, unless v holds one and no
// double) escaped, control characters as \n, \t, \xNN.
func pyRepr(v string) string {
	quote := byte('\'')
	if strings.Contains(v, "'") && !strings.Contains(v, `"`) {
		quote = '"'
	}
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
