package report

import (
	"fmt"
	"strings"
)

// ServerFailure is what the report shows of a server perfgate launched
// that failed (exited, stopped answering, never became ready): Summary in
// words ("the server exited with status 1 during the run") and the end of
// its log, secrets already scrubbed by the launcher.
type ServerFailure struct {
	Summary string
	Tail    string
}

// serverLogVersions renders d.ServerFailure: the summary and the log tail
// in a collapsed code block, then fewer lines, then the summary alone. The
// log is untrusted text from the candidate server; CodeBlock keeps it
// inert.
func serverLogVersions(d *Data) []string {
	f := d.ServerFailure
	if f == nil {
		return []string{""}
	}
	head := ""
	if !strings.Contains(d.RunError, f.Summary) { // else the headline said it
		head = fmt.Sprintf("\n> [!CAUTION]\n> %s.\n", Escape(upperFirst(f.Summary)))
	}
	lines := strings.Split(strings.TrimRight(f.Tail, "\n"), "\n")
	if strings.TrimSpace(f.Tail) == "" {
		return []string{head + "\nThe server printed nothing.\n"}
	}
	var versions []string
	for _, n := range []int{40, 10} {
		if n > len(lines) && len(versions) > 0 {
			continue
		}
		shown := lines[max(0, len(lines)-n):]
		versions = append(versions, fmt.Sprintf("%s\n<details open><summary>Last %d lines of the server's log</summary>\n\n%s\n</details>\n",
			head, len(shown), CodeBlock(strings.Join(shown, "\n"))))
	}
	return append(versions, head)
}

// CodeBlock formats untrusted multi-line text (a server's log) as a fenced
// code block, which markdown does not interpret: no HTML, links, mentions
// or emphasis. Backticks become a look-alike (U+02CB) so no line can close
// the fence, control and bidirectional-override characters are dropped,
// and each line is cut at 500 characters.
func CodeBlock(s string) string {
	var b strings.Builder
	b.WriteString("```text\n")
	for _, line := range strings.Split(strings.ToValidUTF8(s, "\uFFFD"), "\n") {
		line = strings.Map(func(r rune) rune {
			switch {
			case r == '`':
				return '\u02cb'
			case r == '\t':
				return ' '
			case hidden(r):
				return -1
			}
			return r
		}, line)
		b.WriteString(Truncate(line, 500))
		b.WriteByte('\n')
	}
	b.WriteString("```\n")
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
