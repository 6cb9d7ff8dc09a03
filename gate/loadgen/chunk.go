package loadgen

import (
	"bytes"
	"errors"
	"strconv"
)

// chunk is what the client needs from one streamed JSON message. Parsing
// is a hand-written scan of the top-level keys rather than encoding/json:
// it runs once per token event on the measuring path, where the budget is
// about a microsecond (see BenchmarkClient).
type chunk struct {
	// choices: the message has a non-empty choices list, which makes it a
	// token message in vLLM's definition.
	choices bool
	// finish is the first choice's finish_reason when it is a string.
	finish string
	// text holds where the first choice's non-empty output strings lie
	// in the payload (start and end, JSON quotes included): "text"
	// (completions), or the delta's "content" and "reasoning_content" or
	// "reasoning" (chat). Chunks without text (chat's role chunk, a
	// finish-only chunk) count no token when the server's usage does not
	// say better. Offsets keep chunk comparable and allocation-free.
	text  [2][2]int
	texts int
	// usage: the message carried a usage object (not null).
	usage            bool
	promptTokens     int
	completionTokens int
	// err: the message is an error ({"error": ...} or the older flat
	// {"object": "error", ...}).
	err bool
}

var errSyntax = errors.New("malformed JSON")

// parseChunk decodes the fields of chunk from one data payload.
func parseChunk(b []byte) (chunk, error) {
	var c chunk
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return c, errSyntax
	}
	err := eachKey(b, i, func(key []byte, v int) (int, error) {
		switch string(key) {
		case "choices":
			return c.parseChoices(b, v)
		case "usage":
			return c.parseUsage(b, v)
		case "error":
			if !bytes.HasPrefix(b[v:], []byte("null")) {
				c.err = true
			}
		case "object":
			if bytes.HasPrefix(b[v:], []byte(`"error"`)) {
				c.err = true
			}
		}
		return skipValue(b, v)
	})
	return c, err
}

// eachKey walks the object starting at b[i] == '{', calling f with each
// key and the offset of its value; f returns the offset after the value.
// It returns the offset after the closing brace through end (unused by
// parseChunk, which does not care about trailing bytes).
func eachKey(b []byte, i int, f func(key []byte, v int) (int, error)) error {
	_, err := walkObject(b, i, f)
	return err
}

func walkObject(b []byte, i int, f func(key []byte, v int) (int, error)) (int, error) {
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return 0, errSyntax
		}
		if i, err = f(key, i); err != nil {
			return 0, err
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// parseChoices notes whether the array is non-empty and reads the first
// choice's finish_reason; it returns the offset after the array.
func (c *chunk) parseChoices(b []byte, i int) (int, error) {
	if b[i] != '[' {
		return skipValue(b, i)
	}
	j := skipWS(b, i+1)
	if j < len(b) && b[j] == ']' {
		return j + 1, nil
	}
	c.choices = true
	var err error
	if j < len(b) && b[j] == '{' {
		j, err = walkObject(b, j, func(key []byte, v int) (int, error) {
			switch string(key) {
			case "finish_reason":
				if b[v] == '"' {
					end, err := skipString(b, v)
					if err != nil {
						return 0, err
					}
					c.finish = string(b[v+1 : end-1])
					return end, nil
				}
			case "text":
				return c.parseText(b, v)
			case "delta":
				if b[v] == '{' {
					return walkObject(b, v, func(key []byte, v int) (int, error) {
						switch string(key) {
						case "content", "reasoning_content", "reasoning":
							return c.parseText(b, v)
						}
						return skipValue(b, v)
					})
				}
			}
			return skipValue(b, v)
		})
	} else {
		j, err = skipValue(b, j)
	}
	// The rest of the array, element by element (scanned once).
	for err == nil {
		j = skipWS(b, j)
		switch {
		case j >= len(b):
			return 0, errSyntax
		case b[j] == ']':
			return j + 1, nil
		case b[j] == ',':
			j, err = skipValue(b, skipWS(b, j+1))
		default:
			return 0, errSyntax
		}
	}
	return 0, err
}

// parseText notes a non-empty string value of an output field.
func (c *chunk) parseText(b []byte, i int) (int, error) {
	if b[i] != '"' {
		return skipValue(b, i)
	}
	end, err := skipString(b, i)
	if err != nil {
		return 0, err
	}
	if end-i > 2 && c.texts < len(c.text) {
		c.text[c.texts] = [2]int{i, end}
		c.texts++
	}
	return end, nil
}

func (c *chunk) parseUsage(b []byte, i int) (int, error) {
	if b[i] != '{' {
		return skipValue(b, i) // null
	}
	c.usage = true
	return walkObject(b, i, func(key []byte, v int) (int, error) {
		switch string(key) {
		case "prompt_tokens":
			return parseInt(b, v, &c.promptTokens)
		case "completion_tokens":
			return parseInt(b, v, &c.completionTokens)
		}
		return skipValue(b, v)
	})
}

func parseInt(b []byte, i int, dst *int) (int, error) {
	end, err := skipValue(b, i)
	if err != nil {
		return 0, err
	}
	if n, err := strconv.Atoi(string(b[i:end])); err == nil && n >= 0 {
		*dst = n
	}
	return end, nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i] == '"'.
// It jumps from quote to quote (vectorised IndexByte) and counts the
// backslashes before each to tell an escaped quote from the closing one.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// skipValue returns the offset after the JSON value starting at b[i]. It
// checks structure (brackets, strings) but not the grammar of numbers and
// literals, which the client never needs.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	if j == i {
		return 0, errSyntax
	}
	return j, nil
}
