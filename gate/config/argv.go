package config

import (
	"fmt"
	"strings"
)

// Argv is a command line as an argument vector, run without a shell. In
// YAML it is a list; as a string (an environment variable, a flag, the
// Action's server-command input) it is split by SplitArgv.
type Argv []string

// SplitArgv splits s into arguments the way a POSIX shell splits words,
// without any expansion: blanks separate words; 'single quotes' keep
// everything literally; "double quotes" keep everything but allow \" \\ \$
// and \` escapes; a backslash outside quotes keeps the next character.
// Unquoted shell operators (| & ; < > ( )) are errors rather than literal
// arguments, because perfgate starts the command without a shell and a user
// who wrote "vllm serve m > log" expects redirection that would not happen.
func SplitArgv(s string) (Argv, error) {
	var (
		args  Argv
		word  strings.Builder
		inArg bool // a word has started (even an empty quoted one)
	)
	flush := func() {
		if inArg {
			args = append(args, word.String())
			word.Reset()
			inArg = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("command ends with an unfinished backslash escape")
			}
			i++
			if s[i] != '\n' { // backslash-newline is a line continuation
				word.WriteByte(s[i])
				inArg = true
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command has an unterminated single quote at byte %d", i)
			}
			word.WriteString(s[i+1 : i+1+end])
			inArg = true
			i += end + 1
		case c == '"':
			start := i
			inArg = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, fmt.Errorf("command has an unterminated double quote at byte %d", start)
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				word.WriteByte(s[i])
			}
		case strings.IndexByte("|&;<>()", c) >= 0:
			return nil, fmt.Errorf("command has an unquoted %q at byte %d: perfgate runs it without a shell (quote it, or use server.log / server.env)", c, i)
		default:
			word.WriteByte(c)
			inArg = true
		}
	}
	flush()
	return args, nil
}

// String renders a as one line that SplitArgv splits back into a, quoting
// only the arguments that need it.
func (a Argv) String() string {
	parts := make([]string, len(a))
	for i, arg := range a {
		parts[i] = quoteArg(arg)
	}
	return strings.Join(parts, " ")
}

func quoteArg(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./:=,@%+", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
