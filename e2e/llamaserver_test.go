package e2e

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// llamaServerArgs is a llama-server command line as users copy it from
// llama.cpp's documentation and scripts, unchanged (GPU offload, flash
// attention, the endpoint switches, logging and memory flags included).
var llamaServerArgs = strings.Fields("--jinja -ngl 99 -fa on -c 4096 -np 2 --alias my-model --metrics --slots --no-webui --log-disable --mlock -cb")

// TestLlamaServerCommandLine: `waggle serve -m FILE` with a llama-server
// command line starts, names the model by its alias, and serves go-openai,
// the native /completion, /metrics and /slots; SIGTERM ends it with exit 0.
func TestLlamaServerCommandLine(t *testing.T) {
	url := serve(t, append([]string{"-m", model(t, "stories260K-f32.gguf")}, llamaServerArgs...)...)
	c := client(url)
	ctx := ctxT(t)

	models, err := c.ListModels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(models.Models) != 1 || models.Models[0].ID != "my-model" {
		t.Fatalf("models: %+v", models.Models)
	}
	chat, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: "my-model", MaxTokens: 8, Temperature: 0.0001,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Once upon a time"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if chat.Model != "my-model" || chat.Usage.CompletionTokens != 8 || chat.Usage.CompletionTokensDetails == nil {
		t.Fatalf("chat: %+v", chat)
	}
	st, err := c.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: "my-model", MaxTokens: 6, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Hi"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var text string
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
		}
	}
	st.Close()
	if text == "" {
		t.Fatal("empty stream")
	}
	code, native := post(t, url+"/completion", `{"prompt":"Once upon a time","n_predict":4}`)
	if code != 200 || native["model"] != "my-model" || native["generation_settings"] == nil {
		t.Fatalf("/completion: %d %v", code, native)
	}
	// -c 4096 -np 2 is 2048 positions per slot, capped at stories260K's
	// training context.
	for path, want := range map[string]string{"/metrics": "llamacpp:requests_processing", "/slots": `"n_ctx":512`} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d %.300s", path, resp.StatusCode, b)
		}
	}
}
