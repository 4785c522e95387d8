package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// TestGoOpenAIResponses: go-openai's Responses API, streaming and not, on
// stories260K; the streamed text equals the whole answer.
func TestGoOpenAIResponses(t *testing.T) {
	url := serve(t, "-m", model(t, "stories260K-f32.gguf"), "-c", "512", "--parallel", "2")
	c := client(url)
	ctx := ctxT(t)
	temp := float32(0)
	req := openai.CreateResponseRequest{Model: "x", Input: "Once upon a time", Instructions: "Tell a story.",
		MaxOutputTokens: 16, Temperature: &temp}
	r, err := c.CreateResponse(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	text := r.GetOutputText()
	if r.Object != "response" || text == "" || r.Usage == nil || r.Usage.OutputTokens != 16 || r.Status != openai.ResponseStatusIncomplete {
		t.Fatalf("response %+v (text %q)", r, text)
	}
	st, err := c.CreateResponseStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var streamed string
	var types []string
	var final *openai.CreateResponseResponse
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(ev.Type))
		switch ev.Type {
		case openai.ResponseStreamEventOutputTextDelta:
			streamed += ev.Delta
		case openai.ResponseStreamEventCompleted, openai.ResponseStreamEventIncomplete:
			final = ev.Response
		}
	}
	if types[0] != "response.created" || final == nil || streamed != text || final.GetOutputText() != text {
		t.Fatalf("stream %v: %q, want %q", types, streamed, text)
	}
}

// TestGoOpenAIEmbeddings: go-openai's embeddings on a server started with
// --embeddings --pooling mean: one unit vector per input, in order.
func TestGoOpenAIEmbeddings(t *testing.T) {
	url := serve(t, "-m", model(t, "stories260K-f32.gguf"), "-c", "512", "--parallel", "2", "--embeddings", "--pooling", "mean")
	c := client(url)
	r, err := c.CreateEmbeddings(ctxT(t), openai.EmbeddingRequestStrings{Model: "x", Input: []string{"Once upon a time", "Lily", "Once upon a time"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Data) != 3 || r.Usage.PromptTokens <= 0 {
		t.Fatalf("embeddings %+v", r)
	}
	for i, d := range r.Data {
		var n float64
		for _, v := range d.Embedding {
			n += float64(v) * float64(v)
		}
		if d.Index != i || len(d.Embedding) != 64 || math.Abs(n-1) > 1e-5 {
			t.Fatalf("embedding %d: index %d, %d values, |v|² %g", i, d.Index, len(d.Embedding), n)
		}
	}
	// Equal inputs agree to float rounding: on stories260K (F32, n_ff 172)
	// a row's last bits still depend on the batch it was computed in.
	same, other := 0.0, 0.0
	for k, v := range r.Data[0].Embedding {
		same = max(same, math.Abs(float64(v-r.Data[2].Embedding[k])))
		other = max(other, math.Abs(float64(v-r.Data[1].Embedding[k])))
	}
	if same > 1e-5 || other < 1e-3 {
		t.Fatalf("equal inputs differ by %g, different ones by %g", same, other)
	}
}

// TestAnthropicMessages: an Anthropic-shaped request over plain HTTP (the
// x-api-key header, anthropic-version), whole and streamed.
func TestAnthropicMessages(t *testing.T) {
	url := serve(t, "-m", model(t, "stories260K-f32.gguf"), "-c", "512", "--parallel", "2", "--api-key", "k")
	post := func(body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctxT(t), "POST", url+"/v1/messages", strings.NewReader(body))
		req.Header.Set("x-api-key", "k")
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("content-type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	body := `{"model":"claude-x","max_tokens":16,"temperature":0,"system":"Tell a story.","messages":[{"role":"user","content":[{"type":"text","text":"Once upon a time"}]}]}`
	resp := post(body)
	var m struct {
		StopReason string `json:"stop_reason"`
		Content    []struct{ Type, Text string }
		Usage      struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if len(m.Content) != 1 || m.Content[0].Type != "text" || m.Content[0].Text == "" || m.StopReason != "max_tokens" || m.Usage.OutputTokens != 16 {
		t.Fatalf("message %+v", m)
	}
	resp = post(strings.Replace(body, `"temperature":0`, `"temperature":0,"stream":true`, 1))
	var events []string
	var text string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, name)
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && events[len(events)-1] == "content_block_delta" {
			var ev struct{ Delta struct{ Text string } }
			if err := json.Unmarshal([]byte(d), &ev); err != nil {
				t.Fatal(err)
			}
			text += ev.Delta.Text
		}
	}
	if events[0] != "message_start" || events[len(events)-1] != "message_stop" || text != m.Content[0].Text {
		t.Fatalf("events %v: %q, want %q", events, text, m.Content[0].Text)
	}
}
