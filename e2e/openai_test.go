package e2e

import (
	"errors"
	"io"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func client(url string) *openai.Client {
	cfg := openai.DefaultConfig("none")
	cfg.BaseURL = url + "/v1"
	return openai.NewClientWithConfig(cfg)
}

func TestGoOpenAI(t *testing.T) {
	url := serve(t, "-m", model(t, "stories260K-f32.gguf"), "-c", "512", "--parallel", "2") // 256 per slot
	c := client(url)
	ctx := ctxT(t)

	chat, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: "x", MaxTokens: 16, Temperature: 0.0001,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Once upon a time"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chat.Choices) != 1 || chat.Choices[0].Message.Content == "" || chat.Usage.CompletionTokens != 16 {
		t.Fatalf("chat: %+v", chat)
	}

	st, err := c.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: "x", MaxTokens: 8, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Hi"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	var text, finish string
	var usage *openai.Usage
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Choices) > 0 {
			text += r.Choices[0].Delta.Content
			if r.Choices[0].FinishReason != "" {
				finish = string(r.Choices[0].FinishReason)
			}
		}
		if r.Usage != nil {
			usage = r.Usage
		}
	}
	st.Close()
	if text == "" || finish != "length" || usage == nil || usage.CompletionTokens != 8 {
		t.Fatalf("stream: text %q finish %q usage %+v", text, finish, usage)
	}

	comp, err := c.CreateCompletion(ctx, openai.CompletionRequest{Model: "x", Prompt: "Once upon a time", MaxTokens: 32, Temperature: 0.0001, Stop: []string{"Lily"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := comp.Choices[0].Text; strings.Contains(got, "Lily") || comp.Choices[0].FinishReason != "stop" {
		t.Fatalf("stop: %q %s", got, comp.Choices[0].FinishReason)
	}

	many, err := c.CreateCompletion(ctx, openai.CompletionRequest{Model: "x", Prompt: "Once", MaxTokens: 8, N: 3, LogProbs: 2, Seed: ptr(7)})
	if err != nil {
		t.Fatal(err)
	}
	if len(many.Choices) != 3 || len(many.Choices[2].LogProbs.Tokens) != 8 || len(many.Choices[0].LogProbs.TopLogprobs[0]) != 2 {
		t.Fatalf("n=3 logprobs: %+v", many.Choices)
	}

	lp, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: "x", MaxTokens: 4, LogProbs: true, TopLogProbs: 3,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Hi"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if l := lp.Choices[0].LogProbs; l == nil || len(l.Content) != 4 || len(l.Content[0].TopLogProbs) != 3 {
		t.Fatalf("chat logprobs: %+v", lp.Choices[0].LogProbs)
	}
}

func ptr[T any](v T) *T { return &v }
