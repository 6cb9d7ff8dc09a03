package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/gate/verdict"
)

// JSON writes the comparison as indented JSON, the machine-readable form
// of the report (schema verdict.SchemaID). HTML characters are kept as
// they are: the file is data, not a web page.
func JSON(w io.Writer, c *verdict.Comparison) error {
	if c == nil {
		return fmt.Errorf("report: no comparison to render")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("report: encoding the comparison: %w", err)
	}
	return nil
}
