package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The official OpenAI Go client is a client nobody on this project wrote:
// if it can stream from the simulator and read the usage, the framing is
// right in a way our own client cannot prove.
func officialClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("sim-test"), option.WithMaxRetries(0))
}

func TestOpenAIClientStreamsCompletion(t *testing.T) {
	_, url := start(t, fastConfig(t))
	client := officialClient(url)
	stream := client.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{
		Model:         "sim-fast",
		Prompt:        openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")},
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
	if chunks != 12 || usage.CompletionTokens != 12 || usage.PromptTokens != int64(len(tokenize("Once upon a time"))) || finish != "length" {
		t.Errorf("chunks %d, usage %+v, finish %q", chunks, usage, finish)
	}
	if n := len(tokenize(text.String())); n != 12 {
		t.Errorf("text %q is %d tokens", text.String(), n)
	}
}

func TestOpenAIClientStreamsChat(t *testing.T) {
	_, url := start(t, fastConfig(t))
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
	if n := len(tokenize(acc.Choices[0].Message.Content)); n != 7 {
		t.Errorf("content %q is %d tokens", acc.Choices[0].Message.Content, n)
	}
}

func TestOpenAIClientSeesErrors(t *testing.T) {
	_, url := start(t, fastConfig(t))
	client := officialClient(url)
	_, err := client.Completions.New(context.Background(), openai.CompletionNewParams{
		Model:  "no-such-model",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")},
	})
	var apiErr *openai.Error
	if err == nil || !asOpenAIError(err, &apiErr) || apiErr.StatusCode != 404 || !strings.Contains(apiErr.Message, "does not exist") {
		t.Errorf("unknown model: %v", err)
	}
}

func asOpenAIError(err error, target **openai.Error) bool { return errors.As(err, target) }
