package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// toolServer has room for the tool-call grammar's answers.
func toolServer(t *testing.T) *testServer {
	return newTestServer(t, func(c *Config) { c.CtxSize, c.Parallel, c.CtxBeyondTrain = 1024, 1, true })
}

// TestResponsesToolCalls: a forced tool call comes back as a
// function_call item, whole and streamed (added, arguments delta and
// done, item done), with the same arguments as chat's tool_calls.
func TestResponsesToolCalls(t *testing.T) {
	ts := toolServer(t)
	code, chatAns := ts.post(t, "/v1/chat/completions", jsonf(`{"messages":[{"role":"user","content":"weather in Paris?"}],"max_tokens":300,"temperature":0,
		"tools":%s,"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false}`, toolsJSON))
	if code != 200 {
		t.Fatal(chatAns)
	}
	want := chatAns["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"]
	body := `{"input":"weather in Paris?","max_output_tokens":300,"temperature":0,"parallel_tool_calls":false,
		"tools":[{"type":"function","name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string","maxLength":12}},"required":["city"]}}],
		"tool_choice":{"type":"function","name":"get_weather"}}`
	code, m := ts.post(t, "/v1/responses", body)
	if code != 200 {
		t.Fatalf("%d %v", code, m)
	}
	var call map[string]any
	for _, it := range m["output"].([]any) {
		if it := it.(map[string]any); it["type"] == "function_call" {
			call = it
		}
	}
	if call == nil || call["name"] != "get_weather" || call["arguments"] != want || call["call_id"] == "" || m["status"] != "completed" {
		t.Fatalf("output %v, want a get_weather call with %v", m["output"], want)
	}
	_, sbody := ts.do(t, "POST", "/v1/responses", strings.Replace(body, `"temperature":0,`, `"temperature":0,"stream":true,`, 1))
	names, data := sseNamed(t, sbody)
	var args string
	for i, n := range names {
		if n == "response.function_call_arguments.delta" {
			args += data[i]["delta"].(string)
		}
	}
	n := len(names)
	if args != want || names[n-2] != "response.output_item.done" || data[n-2]["item"].(map[string]any)["type"] != "function_call" ||
		!strings.Contains(strings.Join(names, " "), "response.output_item.added response.function_call_arguments.delta response.function_call_arguments.done") {
		t.Fatalf("stream %v: arguments %q, want %q", names, args, want)
	}
}

// TestMessagesToolUse: tool_choice any forces a call, which comes back as
// a tool_use block (input: the arguments object) with stop_reason
// tool_use, whole and streamed (input_json_delta).
func TestMessagesToolUse(t *testing.T) {
	ts := toolServer(t)
	body := `{"max_tokens":300,"temperature":0,"messages":[{"role":"user","content":"weather in Paris?"}],
		"tools":[{"name":"get_weather","description":"Weather in a city","input_schema":{"type":"object","properties":{"city":{"type":"string","maxLength":12}},"required":["city"]}}],
		"tool_choice":{"type":"any","disable_parallel_tool_use":true}}`
	code, m := ts.post(t, "/v1/messages", body)
	if code != 200 {
		t.Fatalf("%d %v", code, m)
	}
	blocks := m["content"].([]any)
	use := blocks[len(blocks)-1].(map[string]any)
	input, _ := use["input"].(map[string]any)
	if use["type"] != "tool_use" || use["name"] != "get_weather" || use["id"] == "" || m["stop_reason"] != "tool_use" {
		t.Fatalf("content %v stop %v", blocks, m["stop_reason"])
	}
	if _, ok := input["city"].(string); !ok {
		t.Fatalf("input %v lacks a string city", use["input"])
	}
	_, sbody := ts.do(t, "POST", "/v1/messages", strings.Replace(body, `"temperature":0,`, `"temperature":0,"stream":true,`, 1))
	names, data := sseNamed(t, sbody)
	var partial string
	for i, n := range names {
		if d, _ := data[i]["delta"].(map[string]any); n == "content_block_delta" && d["type"] == "input_json_delta" {
			partial += d["partial_json"].(string)
		}
	}
	var streamed map[string]any
	if err := json.Unmarshal([]byte(partial), &streamed); err != nil || streamed["city"] != input["city"] {
		t.Fatalf("streamed input %q, want %v", partial, input)
	}
	if md := data[len(data)-2]; md["delta"].(map[string]any)["stop_reason"] != "tool_use" {
		t.Fatalf("message_delta %v", md)
	}
}
