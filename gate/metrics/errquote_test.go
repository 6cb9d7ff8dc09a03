package metrics

import (
	"strings"
	"testing"
	"time"
)

// TestQuoteError covers each engine's 4xx body shape: the message is
// found, kept on one line, quoted, clipped and redacted.
func TestQuoteError(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"ollama /v1", `{"error":{"message":"json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string","type":"invalid_request_error","param":null,"code":null}}`,
			`"json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string"`},
		{"vLLM", `{"error":{"message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}}`,
			`"This model's maximum context length is 4096 tokens."`},
		{"SGLang", `{"object":"error","message":"Model not found","type":"BadRequestError","param":null,"code":400}`, `"Model not found"`},
		{"FastAPI detail string", `{"detail":"Not Found"}`, `"Not Found"`},
		{"FastAPI validation list", `{"detail":[{"loc":["body","prompt"],"msg":"field required","type":"missing"}]}`, `"field required"`},
		{"ollama native", `{"error":"model \"x\" not found, try pulling it first"}`, `"model \"x\" not found, try pulling it first"`},
		{"plain text on two lines", "404 page\nnot found", `"404 page not found"`},
		{"a key echoed back", `{"error":{"message":"bad header Authorization: Bearer sk-abcdefghijklmnopqrstuvwx"}}`, ""},
		{"markdown and quotes survive as text", `{"error":{"message":"<b>x</b> | *y* \"z\""}}`, `"<b>x</b> | *y* \"z\""`},
	}
	for _, tc := range tests {
		got := quoteError(tc.body)
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("%s: %q spans lines", tc.name, got)
		}
		if tc.want == "" {
			if strings.Contains(got, "sk-abcdefghijklmnopqrstuvwx") {
				t.Errorf("%s: the key reached the quote: %s", tc.name, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
	long := quoteError(`{"error":{"message":"` + strings.Repeat("é", 200) + `"}}`)
	if len(long) > quoteMax+8 || !strings.HasSuffix(long, `…"`) {
		t.Errorf("long message not clipped on a rune boundary: %s", long)
	}
}

// TestInvalidReasonQuotesClientErrors: issue 11's text-only server
// answered 400 to every token-id prompt and the cause was only in the
// result JSON; the invalid reason now quotes it. Server errors (5xx) keep
// the count only.
func TestInvalidReasonQuotesClientErrors(t *testing.T) {
	acc := NewAccumulator(SLO{}, 0)
	for i := 0; i < 3; i++ {
		acc.Add(&Request{ErrorType: "http_400", ErrorBody: `{"error":{"message":"json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string","type":"invalid_request_error"}}`})
	}
	acc.Add(&Request{ErrorType: "http_500", ErrorBody: `{"error":{"message":"internal detail"}}`})
	tr := acc.Finish(time.Second, 0, DefaultLimits)
	want := `every request failed (http_400: 3: "json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string", http_500: 1)`
	if tr.InvalidReason != want {
		t.Errorf("reason %q\nwant   %q", tr.InvalidReason, want)
	}
}
