package vllmbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// decodePython decodes a JSON object written by Python's json module, which
// emits the non-standard literals NaN, Infinity and -Infinity for
// non-finite floats (vLLM writes them for, e.g., a TPOT mean over zero
// requests). The literals are rewritten into the strings "NaN", "Infinity"
// and "-Infinity" before decoding; number fields accept those strings, so a
// file's NaN reaches the importer as a value it can recognise and drop.
// Line numbers in errors stay correct because the rewrite adds no newlines.
func decodePython(data []byte) (map[string]any, error) {
	clean := rewriteLiterals(data)
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, withLine(clean, err)
	}
	if obj == nil {
		return nil, errors.New("line 1: expected a JSON object")
	}
	if dec.More() {
		off := dec.InputOffset()
		return nil, fmt.Errorf("line %d: unexpected data after the JSON object", lineAt(clean, off))
	}
	return obj, nil
}

// rewriteLiterals replaces the bare tokens NaN, Infinity and -Infinity
// outside strings with quoted strings. Anything else is left for the JSON
// decoder to judge.
func rewriteLiterals(data []byte) []byte {
	var out []byte // allocated lazily: most files have no such literal
	inString, escaped := false, false
	last := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		for _, lit := range [...]string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(lit)) && !identByte(data, i-1) && !identByte(data, i+len(lit)) {
				out = append(out, data[last:i]...)
				out = append(out, '"')
				out = append(out, lit...)
				out = append(out, '"')
				i += len(lit) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// identByte reports whether data[i] exists and could continue a bare token,
// so that "NaNx" or "xInfinity" are not rewritten.
func identByte(data []byte, i int) bool {
	if i < 0 || i >= len(data) {
		return false
	}
	c := data[i]
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func lineAt(data []byte, off int64) int {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// withLine adds a line number to encoding/json's byte offsets.
func withLine(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("line %d: %w", lineAt(data, se.Offset), err)
	case errors.As(err, &te):
		return fmt.Errorf("line %d: %w", lineAt(data, te.Offset), err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("line %d: unexpected end of file (truncated JSON)", lineAt(data, int64(len(data))))
	case errors.Is(err, io.EOF):
		return errors.New("empty file: expected a JSON object")
	}
	return err
}

// number converts a decoded JSON value to a float64. It accepts numbers,
// the rewritten Python literals and the strings "inf"/"nan" that vLLM
// writes for an infinite request rate. ok is false for null, booleans,
// other strings, arrays and objects.
func number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			// Overflowing literals such as 1e999 parse to ±Inf with an error.
			if ne, isNum := err.(*strconv.NumError); isNum && errors.Is(ne.Err, strconv.ErrRange) {
				return f, true
			}
			return 0, false
		}
		return f, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "inf", "+inf", "infinity", "+infinity":
			return math.Inf(1), true
		case "-inf", "-infinity":
			return math.Inf(-1), true
		case "nan":
			return math.NaN(), true
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// DecodePython is decodePython for the other importers (gate/importers):
// GuideLLM, GenAI-Perf and AIPerf write their JSON with Python's json
// module too. Numbers arrive as json.Number, non-finite ones as the
// strings "NaN", "Infinity" and "-Infinity"; Number reads either.
func DecodePython(data []byte) (map[string]any, error) { return decodePython(data) }

// Number reads a decoded JSON number (see DecodePython).
func Number(v any) (float64, bool) { return number(v) }
