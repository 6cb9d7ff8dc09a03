package report

import (
	"bytes"
)

// Rendered is one comparison in every form a run writes: the comparison
// JSON, the full markdown report, the PR comment (cut to CommentLimit)
// and the terminal text.
type Rendered struct {
	JSON, Full, Comment, Text []byte
}

// Render renders d in all four forms. gate, ab and the demo each write
// all four, and render everything before writing anything, so a form
// that cannot be rendered leaves no file half-written beside it.
func Render(d *Data) (Rendered, error) {
	var js, full, comment, text bytes.Buffer
	if err := JSON(&js, d.Comparison); err != nil {
		return Rendered{}, err
	}
	if err := Markdown(&full, d, 0); err != nil {
		return Rendered{}, err
	}
	if err := Markdown(&comment, d, CommentLimit); err != nil {
		return Rendered{}, err
	}
	if err := Text(&text, d); err != nil {
		return Rendered{}, err
	}
	return Rendered{JSON: js.Bytes(), Full: full.Bytes(), Comment: comment.Bytes(), Text: text.Bytes()}, nil
}
