package benchcli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/redact"
)

// commentLine is argv as one line for the file's header comment: secrets
// (flag values, NAME=VALUE assignments such as a credential header,
// credential shapes) replaced by gate/redact, line breaks removed so
// nothing can escape the comment, words with spaces quoted.
func commentLine(argv []string) string {
	out := redact.Argv(argv)
	for i, w := range out {
		w = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, w)
		if strings.ContainsAny(w, " \t'\"") {
			w = strconv.Quote(w)
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

// envName is the variable a secret header's value is read from:
// X-Api-Key becomes X_API_KEY.
func envName(header string) string {
	return strings.ToUpper(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, header))
}

// writer builds the YAML text line by line, so keys keep the order the
// documentation uses and the header comment survives.
type writer struct{ b strings.Builder }

func (w *writer) line(s string)   { w.b.WriteString(s + "\n") }
func (w *writer) kv(k, v string)  { w.line(k + ": " + v) }
func (w *writer) kv2(k, v string) { w.line("  " + k + ": " + v) }
func (w *writer) String() string  { return w.b.String() }
func itoa(n int) string           { return strconv.Itoa(n) }
func ftoa(x float64) string       { return strconv.FormatFloat(x, 'g', -1, 64) }

func intFlag(a Args, flag string, def int) (int, error) {
	if !a.has(flag) {
		return def, nil
	}
	n, err := strconv.Atoi(a.last(flag))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: want a whole number >= 0", flag, a.last(flag))
	}
	return n, nil
}

func numFlag(a Args, flag string, def float64) (float64, error) {
	if !a.has(flag) {
		return def, nil
	}
	x, err := strconv.ParseFloat(a.last(flag), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a number", flag, a.last(flag))
	}
	return x, nil
}

// quote writes s as a YAML scalar: bare when it is plain, else as a JSON
// string (JSON strings are YAML), so no value can change the structure.
func quote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./@", r))
	}) < 0
	if plain {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}
