package redact

import (
	"strings"
	"unicode"
)

// Argv returns a copy of a command line that is safe to record:
//
//   - the value of a secret flag, "--api-key X" or "--api-key=X";
//   - the value of a secret assignment, "HF_TOKEN=X" (as after env);
//   - credential-shaped values after any flag, "-k sk-…";
//   - secrets inside values, "VLLM_EXTRA=--api-key X" or
//     "bash -c 'vllm serve --api-key X'", by redacting the value's words
//     as a command line of their own;
//   - URL user info and secret query parameters (see URL)
//
// are replaced by Placeholder. Everything else, --max-num-batched-tokens
// 8192 and --time-to-first-token 50ms included, stays as it is.
func Argv(argv []string) []string {
	out, _ := redactArgv(argv, 0)
	return out
}

// ArgvSecrets returns the values Argv hides, for a Scrubber to look for
// in free text such as the server's log.
func ArgvSecrets(argv []string) []string {
	_, found := redactArgv(argv, 0)
	return found
}

// maxDepth bounds the recursion into values that hold command lines.
const maxDepth = 4

func redactArgv(argv []string, depth int) ([]string, []string) {
	if argv == nil {
		return nil, nil
	}
	out := make([]string, len(argv))
	var found []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if isFlag(a) {
			name, value, hasValue := strings.Cut(a, "=")
			if Name(name) {
				switch {
				case hasValue && value != "" && value != Placeholder:
					out[i] = name + "=" + Placeholder
					found = append(found, value)
				case hasValue:
					out[i] = a
				case i+1 < len(argv) && !isFlag(argv[i+1]):
					out[i] = a
					if argv[i+1] != Placeholder {
						found = append(found, argv[i+1])
					}
					out[i+1] = Placeholder
					i++
				default:
					out[i] = a
				}
				continue
			}
			if hasValue {
				v, f := redactValue(value, depth)
				out[i] = name + "=" + v
				found = append(found, f...)
				continue
			}
			out[i] = a
			continue
		}
		v, f := redactValue(a, depth)
		out[i] = v
		found = append(found, f...)
	}
	return out, found
}

// isFlag reports whether a looks like an option rather than a value: a
// leading dash followed by a letter or another dash (-5 is a number).
func isFlag(a string) bool {
	return len(a) > 1 && a[0] == '-' && (a[1] == '-' || unicode.IsLetter(rune(a[1])))
}

// Value hides the secrets inside one value that has no name of its own
// (an argument, or the value of a variable whose name is not secret).
func Value(v string) string {
	out, _ := redactValue(v, 0)
	return out
}

func redactValue(v string, depth int) (string, []string) {
	if v == "" || v == Placeholder {
		return v, nil
	}
	if name, value, ok := strings.Cut(v, "="); ok && isIdent(name) {
		if Name(name) {
			if value == "" || value == Placeholder {
				return v, nil
			}
			return name + "=" + Placeholder, []string{value}
		}
		if depth < maxDepth {
			inner, found := redactValue(value, depth+1)
			return name + "=" + inner, found
		}
	}
	if strings.ContainsAny(v, " \t\n") && depth < maxDepth {
		return redactWords(v, depth+1)
	}
	if strings.Contains(v, "://") {
		u, found := redactURL(v)
		return u, found
	}
	return text(v)
}

// redactWords redacts the whitespace-separated words of v as a command
// line, keeping the separators as they were.
func redactWords(v string, depth int) (string, []string) {
	type span struct{ start, end int }
	var spans []span
	start := -1
	for i, r := range v {
		if unicode.IsSpace(r) {
			if start >= 0 {
				spans = append(spans, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		spans = append(spans, span{start, len(v)})
	}
	ws := make([]string, len(spans))
	for i, sp := range spans {
		ws[i] = v[sp.start:sp.end]
	}
	red, found := redactArgv(ws, depth)
	var b strings.Builder
	last := 0
	for i, sp := range spans {
		b.WriteString(v[last:sp.start])
		b.WriteString(red[i])
		last = sp.end
	}
	b.WriteString(v[last:])
	// What the words did not catch by position ("Authorization: Bearer x")
	// the text patterns may.
	out, more := text(b.String())
	return out, append(found, more...)
}

// isIdent reports whether s can be an environment variable name.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// Env returns a copy of "NAME=value" entries (server.env, os.Environ) that
// is safe to record: secret names get Placeholder, other values are
// searched for secrets like Value, and an entry without "=" is replaced
// whole, since it may be a bare secret pasted in the wrong place.
func Env(entries []string) []string {
	if entries == nil {
		return nil
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		name, value, ok := strings.Cut(e, "=")
		if !ok || name == "" {
			out[i] = Placeholder
			continue
		}
		out[i] = name + "=" + EnvValue(name, value)
	}
	return out
}

// EnvValue is the recordable form of variable name's value.
func EnvValue(name, value string) string {
	if value == "" {
		return value
	}
	if Name(name) {
		return Placeholder
	}
	return Value(value)
}

// EnvSecrets returns the values of the secret variables among "NAME=value"
// entries, and the secrets inside the others' values, for a Scrubber.
func EnvSecrets(entries []string) []string {
	var found []string
	for _, e := range entries {
		name, value, ok := strings.Cut(e, "=")
		if !ok || value == "" {
			continue
		}
		if Name(name) {
			found = append(found, value)
			continue
		}
		_, f := redactValue(value, 0)
		found = append(found, f...)
	}
	return found
}
