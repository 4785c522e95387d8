package e2e

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"
)

var weatherTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name: "get_weather", Description: "Weather in a city",
	Parameters: jsonschema.Definition{Type: jsonschema.Object, Required: []string{"city"},
		Properties: map[string]jsonschema.Definition{"city": {Type: jsonschema.String}}},
}}

// checkWeatherCall asserts a get_weather call with a string city.
func checkWeatherCall(t *testing.T, what string, c openai.ToolCall) {
	t.Helper()
	var args struct {
		City *string `json:"city"`
	}
	if c.Function.Name != "get_weather" || c.ID == "" || json.Unmarshal([]byte(c.Function.Arguments), &args) != nil || args.City == nil {
		t.Fatalf("%s: call %+v", what, c)
	}
}

func endedWithCalls(f openai.FinishReason) bool {
	return f == openai.FinishReasonToolCalls || f == openai.FinishReasonLength
}

// go-openai receives parsed tool calls, whole and streamed, in the
// generic format (stories260K has no template) and in the Hermes/Qwen
// format (a Qwen3-style template), and schema-valid JSON.
func TestGoOpenAITools(t *testing.T) {
	qwen, err := os.ReadFile("../server/testdata/oracle/qwen3-tools.jinja")
	if err != nil {
		t.Fatal(err)
	}
	for _, tmpl := range []string{"", string(qwen)} {
		// The Qwen template's tool prompt exceeds stories260K's 512-token training context.
		args := []string{"-m", model(t, "stories260K-f32.gguf"), "-c", "2048", "--parallel", "1", "--ctx-beyond-train"}
		if tmpl != "" {
			args = append(args, "--chat-template", tmpl)
		}
		c := client(serve(t, args...))
		ctx := ctxT(t)
		req := openai.ChatCompletionRequest{Model: "x", MaxTokens: 400, Temperature: 0.0001,
			Messages:   []openai.ChatCompletionMessage{{Role: "user", Content: "What is the weather in Paris?"}},
			Tools:      []openai.Tool{weatherTool},
			ToolChoice: "required", ParallelToolCalls: false}
		r, err := c.CreateChatCompletion(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// stories260K may keep writing calls (the Hermes grammar allows any
		// number of <tool_call> blocks, as llama.cpp's) until max_tokens.
		if len(r.Choices[0].Message.ToolCalls) == 0 || !endedWithCalls(r.Choices[0].FinishReason) {
			t.Fatalf("template %d bytes: %+v", len(tmpl), r.Choices[0])
		}
		for _, tc := range r.Choices[0].Message.ToolCalls {
			checkWeatherCall(t, "whole", tc)
		}

		st, err := c.CreateChatCompletionStream(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var calls []openai.ToolCall
		finish := openai.FinishReason("")
		for {
			ch, err := st.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range ch.Choices {
				for _, tc := range x.Delta.ToolCalls {
					if tc.Index == nil || *tc.Index != len(calls) {
						t.Fatalf("stream: tool call index %v", tc.Index)
					}
					calls = append(calls, tc)
				}
				if x.FinishReason != "" {
					finish = x.FinishReason
				}
			}
		}
		st.Close()
		if len(calls) != len(r.Choices[0].Message.ToolCalls) || finish != r.Choices[0].FinishReason {
			t.Fatalf("stream: calls %+v finish %q, whole: %d calls, finish %q", calls, finish, len(r.Choices[0].Message.ToolCalls), r.Choices[0].FinishReason)
		}
		for _, tc := range calls {
			checkWeatherCall(t, "stream", tc)
		}

		schema := jsonschema.Definition{Type: jsonschema.Object, Required: []string{"name", "age"},
			Properties: map[string]jsonschema.Definition{"name": {Type: jsonschema.String}, "age": {Type: jsonschema.Integer}}}
		raw, _ := json.Marshal(schema)
		js, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "x", MaxTokens: 200, Temperature: 0.0001,
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Describe a person."}},
			ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "person", Schema: json.RawMessage(raw)}}})
		if err != nil {
			t.Fatal(err)
		}
		var person struct {
			Name *string `json:"name"`
			Age  *int    `json:"age"`
		}
		if err := json.Unmarshal([]byte(js.Choices[0].Message.Content), &person); err != nil || person.Name == nil || person.Age == nil {
			t.Fatalf("json_schema: %q (%v)", js.Choices[0].Message.Content, err)
		}
	}
}
