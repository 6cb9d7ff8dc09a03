package metrics

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/gate/redact"
)

// quoteMax bounds the server message quoted in an invalid reason: enough
// for "json: cannot unmarshal array into Go struct field
// CompletionRequest.prompt of type string" and its like.
const quoteMax = 160

// errorMessage extracts the human part of an error body in the shapes the
// engines use: {"error": {"message": ...}} (OpenAI, vLLM, ollama's /v1),
// {"object": "error", "message": ...} (SGLang), {"detail": ...} (FastAPI,
// a string or a list of {"msg": ...}), {"error": "..."} (ollama's native
// API); anything else is the body itself.
func errorMessage(body string) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message any             `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal([]byte(body), &v) == nil {
		var inner struct {
			Message any `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && stringOf(inner.Message) != "":
			return stringOf(inner.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case stringOf(v.Message) != "":
			return stringOf(v.Message)
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s
		}
		var list []struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(v.Detail, &list) == nil && len(list) > 0 && list[0].Msg != "" {
			return list[0].Msg
		}
	}
	return body
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// quoteError is a server's error body as an invalid reason quotes it: the
// message only, on one line, at most quoteMax bytes, with credentials
// replaced (gate/redact), in Go quotes so control characters and quotes
// are escaped. Reports escape it again for markdown.
func quoteError(body string) string {
	msg := strings.Join(strings.Fields(errorMessage(body)), " ")
	msg = redact.Text(msg)
	if len(msg) > quoteMax {
		cut := quoteMax
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return strconv.Quote(msg)
}

// quotedSummary is errorSummary with the message of each client error
// (HTTP 4xx: a request the server refused, whose cause is in its body)
// quoted after its count, so the reason says why and not only how often.
func quotedSummary(errs map[string]int, samples map[string]string) string {
	parts := strings.Split(errorSummary(errs), ", ")
	for i, p := range parts {
		typ, _, _ := strings.Cut(p, ": ")
		if body := samples[typ]; body != "" && strings.HasPrefix(typ, "http_4") {
			parts[i] = p + ": " + quoteError(body)
		}
	}
	return strings.Join(parts, ", ")
}
