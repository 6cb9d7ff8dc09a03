package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/perfgate/perfgate/gate/sim"
)

// start serves the simulator's "fast" preset on a loopback port.
func start(t *testing.T) string {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.NewServer(cfg, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return ts.URL
}

// officialClient talks to the simulator at url, without retries: a retry
// would hide a framing error behind a second attempt.
func officialClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("sim-test"), option.WithMaxRetries(0))
}

// tokens counts text's tokens with the simulator's own tokenizer, through
// its vLLM-compatible /tokenize endpoint (the test sees only the HTTP API,
// like any client).
func tokens(t *testing.T, url, text string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"prompt": text})
	resp, err := http.Post(url+"/tokenize", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST /tokenize: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Count int `json:"count"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /tokenize: HTTP %d, %v", resp.StatusCode, err)
	}
	return out.Count
}

func TestOpenAIClientStreamsCompletion(t *testing.T) {
	url := start(t)
	client := officialClient(url)
	const prompt = "Once upon a time"
	stream := client.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{
		Model:         "sim-fast",
		Prompt:        openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		MaxTokens:     openai.Int(12),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var text strings.Builder
	var chunks int
	var usage openai.CompletionUsage
	var finish string
	for stream.Next() {
		c := stream.Current()
		if len(c.Choices) > 0 {
			chunks++
			text.WriteString(c.Choices[0].Text)
			if c.Choices[0].FinishReason != "" {
				finish = string(c.Choices[0].FinishReason)
			}
		}
		if c.Usage.TotalTokens > 0 {
			usage = c.Usage
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if chunks != 12 || usage.CompletionTokens != 12 || usage.PromptTokens != int64(tokens(t, url, prompt)) || finish != "length" {
		t.Errorf("chunks %d, usage %+v, finish %q", chunks, usage, finish)
	}
	if n := tokens(t, url, text.String()); n != 12 {
		t.Errorf("text %q is %d tokens", text.String(), n)
	}
}

func TestOpenAIClientStreamsChat(t *testing.T) {
	url := start(t)
	client := officialClient(url)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:               "sim-fast",
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say something")},
		MaxCompletionTokens: openai.Int(7),
		StreamOptions:       openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Role != "assistant" || acc.Choices[0].FinishReason != "length" {
		t.Fatalf("accumulated %+v", acc.ChatCompletion)
	}
	if acc.Usage.CompletionTokens != 7 || acc.Usage.PromptTokens == 0 {
		t.Errorf("usage %+v", acc.Usage)
	}
	if n := tokens(t, url, acc.Choices[0].Message.Content); n != 7 {
		t.Errorf("content %q is %d tokens", acc.Choices[0].Message.Content, n)
	}
}

func TestOpenAIClientSeesErrors(t *testing.T) {
	url := start(t)
	client := officialClient(url)
	_, err := client.Completions.New(context.Background(), openai.CompletionNewParams{
		Model:  "no-such-model",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")},
	})
	var apiErr *openai.Error
	if err == nil || !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || !strings.Contains(apiErr.Message, "does not exist") {
		t.Errorf("unknown model: %v", err)
	}
}
