package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes an untrusted string (a server error body, a model name, a
// file or workload name) safe to place inline in GitHub-flavoured markdown,
// including inside a table cell. It neutralises everything that could
// change the structure of the comment or act on readers:
//
//   - table and block structure: | and newlines (a newline ends a table row,
//     a leading # or > starts a heading or quote), so line breaks become
//     spaces and | is backslash-escaped;
//   - HTML: <, > and & become entities, so a body like "</details>" or
//     "<img src=...>" cannot close our sections or load anything;
//   - links and images: [ and ] are escaped, so no text becomes a link or
//     an image (parentheses and ! are harmless without them);
//   - emphasis and code spans: * _ ~ ` \ are escaped;
//   - mentions and references: @ is written as an entity so an error body
//     containing "@org/team" does not notify anyone;
//   - control characters (other than tab, which becomes a space) are dropped
//     and invalid UTF-8 is replaced.
//
// The result renders as the original text.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i, w := 0, 0; i < len(s); i += w {
		r, width := utf8.DecodeRuneInString(s[i:])
		w = width
		if r == utf8.RuneError && width == 1 {
			b.WriteRune('\uFFFD')
			continue
		}
		switch r {
		case '\r':
			// \r\n is one break; a lone \r is a break too.
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			b.WriteByte(' ')
		case '\n', '\t', '\v', '\f', '\u2028', '\u2029':
			b.WriteByte(' ')
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("&#64;")
		case '\\', '|', '`', '[', ']', '*', '_', '~', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			if hidden(r) {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Truncate shortens s to at most n runes, ending in "…" when it cut
// anything. It is applied before Escape so an escape sequence is never cut
// in half.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

// Code formats an untrusted string (a file path, a command line) as an
// inline code span, which markdown does not interpret. A span cannot
// contain its own delimiter or a table separator reliably, so backticks and
// | are replaced by look-alikes (U+02CB, U+2502) and line breaks by spaces:
// the text stays readable and can never leave the span.
func Code(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '`':
			return '\u02cb'
		case '|':
			return '\u2502'
		case '\n', '\r', '\t':
			return ' '
		}
		if hidden(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if strings.TrimSpace(s) == "" {
		return "` `"
	}
	return "`" + s + "`"
}

// hidden reports control and bidirectional-override characters: they can
// hide or reorder text a reviewer reads and carry nothing worth showing.
func hidden(r rune) bool {
	return unicode.IsControl(r) || r == '\u200e' || r == '\u200f' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// HTMLText makes an untrusted string safe inside an HTML element such as a
// <details> summary, where GitHub may or may not apply markdown: every
// character that HTML or markdown would interpret becomes a numeric
// entity, which renders as itself either way. Line breaks become spaces
// and hidden characters are dropped, as in Escape.
func HTMLText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case strings.ContainsRune("<>&\"'@\\|`[]*_~#!", r):
			fmt.Fprintf(&b, "&#%d;", r)
		case hidden(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
