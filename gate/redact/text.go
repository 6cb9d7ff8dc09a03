package redact

import (
	"regexp"
	"strings"
)

// credentialRe matches values shaped like a credential of a service
// perfgate meets (OpenAI and Anthropic keys, GitHub tokens of every kind,
// Hugging Face, GitLab, Slack, AWS access key ids, JWTs), whatever name
// they carry. The minimum lengths keep words such as "sk-learn" or
// "hf_transfer" visible. The prefixes that end words of English ("task-",
// "disk-") or start them ("eyJ" is rare, AKIA rarer) must begin a word;
// the others are found anywhere, glued to what precedes them included.
var credentialRe = regexp.MustCompile(`(?:` +
	`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|\bsk_(?:live|test)_[A-Za-z0-9]{16,}|` +
	`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|` +
	`hf_[A-Za-z0-9]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|` +
	`\b(?:AKIA|ASIA)[0-9A-Z]{16}|` +
	`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}` +
	`)`)

// assignRe matches NAME=value, name='value', "name": "value" and
// Name: value, the ways environment dumps, Python reprs, JSON, headers and
// query strings attach a value to a name. Whether the value is hidden
// depends on the name and the separator (see hideAssigned).
var assignRe = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)(["']?[ \t]*([:=])[ \t]*\[?["']?)((?i:bearer|basic|token)[ \t]+)?([^\s"'&,;)}\[\]]+)`)

// bearerRe matches an authorization scheme followed by its credentials.
var bearerRe = regexp.MustCompile(`(?i)\b(bearer|basic)([ \t]+)([A-Za-z0-9._~+/=-]{8,})`)

// userinfoRe matches the user info of a URL in text.
var userinfoRe = regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s/?#@\[\]]+)@`)

// Text hides credentials in free text by their shape and by the names
// attached to them: credential-shaped values, "NAME=value" with a secret
// NAME, "Name: value" with a secret Name of more than one word (a bare
// "token: 50ms" is a latency in a log, not a key), "Bearer …", and URL
// user info. Values with no name and no shape need a Scrubber.
func Text(s string) string {
	out, _ := text(s)
	return out
}

// text is Text, also returning the values it hid.
func text(s string) (string, []string) {
	var found []string
	if mayHaveCredential(s) {
		s = credentialRe.ReplaceAllStringFunc(s, func(m string) string {
			found = append(found, m)
			return Placeholder
		})
	}
	if mayHaveSecretName(s) {
		s = replaceAssigned(s, &found)
	}
	if mayHaveScheme(s) {
		s = replaceSubmatch(bearerRe, s, func(m []string, at []int) string {
			if hidden(s, at[3]) {
				return m[0]
			}
			found = append(found, m[3])
			return m[1] + m[2] + Placeholder
		})
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = replaceSubmatch(userinfoRe, s, func(m []string, at []int) string {
			if hidden(s, at[2]) {
				return m[0]
			}
			found = append(found, m[2])
			return m[1] + Placeholder + "@"
		})
	}
	return s, found
}

// credentialPrefixes are the literal starts of every credentialRe
// alternative: text holding none of them cannot match, and a search with
// strings.Contains is far cheaper than the regular expression, which the
// launcher runs over every line a server logs.
var credentialPrefixes = []string{
	"sk-", "sk_live_", "sk_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
	"hf_", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "AKIA", "ASIA", "eyJ",
}

// mayHaveCredential reports whether s holds a prefix of credentialRe.
func mayHaveCredential(s string) bool {
	for _, p := range credentialPrefixes {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// mayHaveScheme reports whether s may hold bearerRe's "bearer" or
// "basic" in any case. Outside ASCII it always may: (?i) folds the long
// s (U+017F) to s.
func mayHaveScheme(s string) bool {
	if !isASCII(s) {
		return true
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "bearer") || strings.Contains(l, "basic")
}

// nameHints are what every name Name calls secret contains, in lower
// case: its words ending in KEY, TOKEN, SECRET, PASSWORD, PASSWD,
// PASSPHRASE, CREDENTIAL, AUTHORIZATION, COOKIE, or being AUTH, PASS,
// PAT or PWD. Text with none of them holds no secret assignment, and
// replaceAssigned's expression, matched at every ":" and "=", is the
// costliest part of Text.
var nameHints = []string{"key", "token", "secret", "pass", "credential", "auth", "pat", "pwd", "cookie"}

// mayHaveSecretName reports whether s may hold a name Name calls secret.
// Outside ASCII it always may: Name upper-cases words, and "ſ" and "ı"
// become S and I.
func mayHaveSecretName(s string) bool {
	if !isASCII(s) {
		return true
	}
	l := strings.ToLower(s)
	for _, h := range nameHints {
		if strings.Contains(l, h) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// replaceAssigned hides the values of secret assignments (assignRe). A
// match whose value stays is not skipped whole: scanning goes on after its
// separator, so "https://h/?token=x" finds token=x inside the value of
// "https:".
func replaceAssigned(s string, found *[]string) string {
	var b strings.Builder
	pos, last := 0, 0
	for pos < len(s) {
		loc := assignRe.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += pos
			}
		}
		group := func(i int) string {
			if loc[2*i] < 0 {
				return ""
			}
			return s[loc[2*i]:loc[2*i+1]]
		}
		name, between, sep, scheme, value := group(1), group(2), group(3), group(4), group(5)
		if hidden(s, loc[10]) || isScheme(value) || !hideAssigned(name, sep, between) {
			pos = loc[5] // past the separator
			continue
		}
		*found = append(*found, value)
		b.WriteString(s[last:loc[0]])
		b.WriteString(name + between + scheme + Placeholder)
		last, pos = loc[1], loc[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// isScheme reports whether v is an authorization scheme, which is kept
// in front of the hidden credentials ("Authorization: Bearer [redacted]").
func isScheme(v string) bool {
	return strings.EqualFold(v, "bearer") || strings.EqualFold(v, "basic") || strings.EqualFold(v, "token")
}

// hideAssigned says whether the value after name and separator sep (":"
// or "=", within the separating text between) is a secret. ":" is a
// header ("X-Api-Key: v"), a JSON or Python key ("api_key":"v") or just
// punctuation, so it counts only
//
//   - after a quoted key or before a space ("file-secret.yaml:7:" is a
//     position, not a key);
//   - after a name without dots (a file or host name is not a key);
//   - after a name of several words or a strong one (password: x,
//     Authorization: x): "first token: 50ms" in a log is a measurement.
func hideAssigned(name, sep, between string) bool {
	if !Name(name) {
		return false
	}
	if sep == "=" {
		return true
	}
	quoted := strings.HasPrefix(between, `"`) || strings.HasPrefix(between, "'")
	spaced := strings.ContainsAny(between[strings.IndexByte(between, ':')+1:], " \t")
	if !(quoted || spaced) || strings.Contains(name, ".") {
		return false
	}
	w := words(name)
	return len(w) > 1 || strong(w[0])
}

// hidden reports whether the value at s[pos:] is already the placeholder
// (or its inside, when a pattern took the opening bracket as a quote), so
// that redacting twice changes nothing.
func hidden(s string, pos int) bool {
	return strings.HasPrefix(s[pos:], Placeholder) || (pos > 0 && strings.HasPrefix(s[pos-1:], Placeholder))
}

// replaceSubmatch is regexp.ReplaceAllStringFunc with the submatches and
// their start offsets in s.
func replaceSubmatch(re *regexp.Regexp, s string, f func(m []string, at []int) string) string {
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range idx {
		m := make([]string, len(loc)/2)
		at := make([]int, len(loc)/2)
		for i := range m {
			at[i] = loc[2*i]
			if loc[2*i] >= 0 {
				m[i] = s[loc[2*i]:loc[2*i+1]]
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(f(m, at))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
