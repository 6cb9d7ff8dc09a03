package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// textBit marks ids that are hashes of text pieces rather than ids the
// client sent, so /tokenize can show small stable numbers for them.
const textBit = 1 << 63

// tokenize splits text the way the simulator's model "sees" it: a piece is
// an optional single leading space followed by up to four non-space bytes;
// any other whitespace byte is a piece of its own. That averages about four
// characters a token for English, like real BPE vocabularies, and makes each
// word of the generated vocabulary exactly one token.
func tokenize(text string) []uint64 {
	ids := make([]uint64, 0, len(text)/4+1)
	i := 0
	for i < len(text) {
		start := i
		if text[i] == ' ' && i+1 < len(text) && !isSpace(text[i+1]) {
			i++
		} else if isSpace(text[i]) {
			i++
			ids = append(ids, fnvString(fnvOffset, text[start:i])|textBit)
			continue
		}
		n := 0
		for i < len(text) && !isSpace(text[i]) && n < 4 {
			i++
			n++
		}
		ids = append(ids, fnvString(fnvOffset, text[start:i])|textBit)
	}
	return ids
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// publicID is the id /tokenize reports: the client's own id, or a stable
// number in [1000, 129000) for a text piece.
func publicID(id uint64) uint64 {
	if id&textBit == 0 {
		return id
	}
	return 1000 + (id&^textBit)%128000
}

// parsePrompt accepts the forms vLLM's completions endpoint accepts: a
// string, a list of token ids, a list of strings, or a list of token-id
// lists. Each element of a list of prompts becomes its own choice.
func parsePrompt(raw json.RawMessage) ([][]uint64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("prompt is required")
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return [][]uint64{tokenize(text)}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New("prompt must be a string, a list of token ids, a list of strings or a list of token-id lists")
	}
	if len(items) == 0 {
		return nil, errors.New("prompt must not be an empty list")
	}
	var ids []int64
	if err := json.Unmarshal(raw, &ids); err == nil {
		p, err := checkIDs(ids)
		return [][]uint64{p}, err
	}
	out := make([][]uint64, 0, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &text); err == nil {
			out = append(out, tokenize(text))
			continue
		}
		if err := json.Unmarshal(it, &ids); err != nil {
			return nil, fmt.Errorf("prompt[%d] must be a string or a list of token ids", i)
		}
		p, err := checkIDs(ids)
		if err != nil {
			return nil, fmt.Errorf("prompt[%d]: %w", i, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func checkIDs(ids []int64) ([]uint64, error) {
	out := make([]uint64, len(ids))
	for i, id := range ids {
		if id < 0 {
			return nil, fmt.Errorf("token id %d at position %d is negative", id, i)
		}
		out[i] = uint64(id)
	}
	return out, nil
}

// chatMessage is one entry of messages; content is a string, a list of
// content parts, or null.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// chatPrompt applies the simulator's chat template: each message becomes
// "<|role|>\ncontent\n", followed by the assistant header.
func chatPrompt(msgs []chatMessage) (string, error) {
	if len(msgs) == 0 {
		return "", errors.New("messages must not be empty")
	}
	var b strings.Builder
	for i, m := range msgs {
		if m.Role == "" {
			return "", fmt.Errorf("messages[%d].role is required", i)
		}
		text, err := messageText(m.Content)
		if err != nil {
			return "", fmt.Errorf("messages[%d].content: %w", i, err)
		}
		b.WriteString("<|" + m.Role + "|>\n" + text + "\n")
	}
	b.WriteString("<|assistant|>\n")
	return b.String(), nil
}

func messageText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or a list of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}
