package report

import (
	"fmt"
	"strings"
)

// footnotes numbers warnings in the order they are first referenced, so
// the same caveat on many cells is one footnote (benchstat's habit of
// carrying caveats with results and printing them once, numbered).
type footnotes struct {
	index map[string]int
	texts []string
}

func newFootnotes() *footnotes { return &footnotes{index: map[string]int{}} }

// ref returns the GitHub footnote reference for text, adding it if new.
func (f *footnotes) ref(text string) string {
	n, ok := f.index[text]
	if !ok {
		f.texts = append(f.texts, text)
		n = len(f.texts)
		f.index[text] = n
	}
	return fmt.Sprintf("[^%d]", n)
}

// maxFootnotes caps the footnotes kept when the comment must shrink.
const maxFootnotes = 30

// versions renders the footnote definitions: all of them, then the first
// maxFootnotes, then none.
func (f *footnotes) versions() []string {
	render := func(max int) string {
		if len(f.texts) == 0 {
			return ""
		}
		var b strings.Builder
		b.WriteString("\n")
		for i, t := range f.texts {
			if i >= max {
				fmt.Fprintf(&b, "\n%d more warning(s) are in the full report.\n", len(f.texts)-max)
				break
			}
			fmt.Fprintf(&b, "[^%d]: %s\n", i+1, Escape(Truncate(t, 500)))
		}
		return b.String()
	}
	return []string{render(len(f.texts)), render(maxFootnotes), ""}
}
