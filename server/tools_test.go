package server

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const toolsJSON = `[{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
 "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}}, "required": ["city"]}}}]`

func qwenTemplate(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/oracle/qwen3-tools.jinja")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkCall asserts one get_weather call whose arguments are a JSON object
// with a string city.
func checkCall(t *testing.T, what string, call map[string]any) {
	t.Helper()
	fn, _ := call["function"].(map[string]any)
	if call["type"] != "function" || fn["name"] != "get_weather" || call["id"] == "" {
		t.Fatalf("%s: call %v", what, call)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(fn["arguments"].(string)), &args); err != nil {
		t.Fatalf("%s: arguments %q: %v", what, fn["arguments"], err)
	}
	if _, ok := args["city"].(string); !ok {
		t.Fatalf("%s: arguments %v lack a string city", what, args)
	}
}

// tool_choice required (and a named function) makes the model call the
// tool, in the template's family, streamed and not.
func TestToolCallsRequired(t *testing.T) {
	for _, tmpl := range []string{"", "qwen"} {
		ts := newTestServer(t, func(c *Config) {
			c.CtxSize, c.Parallel, c.CtxBeyondTrain = 1024, 1, true
			if tmpl == "qwen" {
				c.ChatTemplate = qwenTemplate(t)
			}
		})
		for _, choice := range []string{`"required"`, `{"type": "function", "function": {"name": "get_weather"}}`} {
			body := jsonf(`{"messages": [{"role": "user", "content": "weather in Paris?"}], "max_tokens": 300, "temperature": 0,
				"tools": %s, "tool_choice": %s, "parallel_tool_calls": false}`, toolsJSON, choice)
			code, m := ts.post(t, "/v1/chat/completions", body)
			if code != 200 {
				t.Fatalf("%s: status %d %v", tmpl, code, m)
			}
			ch := m["choices"].([]any)[0].(map[string]any)
			msg := ch["message"].(map[string]any)
			calls, _ := msg["tool_calls"].([]any)
			if len(calls) != 1 || ch["finish_reason"] != "tool_calls" {
				t.Fatalf("%s %s: message %v finish %v", tmpl, choice, msg, ch["finish_reason"])
			}
			checkCall(t, tmpl, calls[0].(map[string]any))

			_, sbody := ts.do(t, "POST", "/v1/chat/completions", strings.Replace(body, `"temperature": 0,`, `"temperature": 0, "stream": true,`, 1))
			var streamed []any
			finish := ""
			for _, ev := range sseEvents(t, sbody) {
				if ev == "[DONE]" {
					continue
				}
				var c map[string]any
				if err := json.Unmarshal([]byte(ev), &c); err != nil {
					t.Fatal(err)
				}
				for _, x := range c["choices"].([]any) {
					x := x.(map[string]any)
					if d, ok := x["delta"].(map[string]any)["tool_calls"].([]any); ok {
						streamed = append(streamed, d...)
					}
					if f, ok := x["finish_reason"].(string); ok {
						finish = f
					}
				}
			}
			if len(streamed) != 1 || finish != "tool_calls" || streamed[0].(map[string]any)["index"] != 0.0 {
				t.Fatalf("%s stream: tool_calls %v finish %q", tmpl, streamed, finish)
			}
			checkCall(t, tmpl+" stream", streamed[0].(map[string]any))
		}
	}
}

// A role:tool answer and the assistant's earlier call render through the
// template (tool_call_id and arguments round-trip), and the prompt shows
// the tools.
func TestToolMessagesRender(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.ChatTemplate, c.CtxSize, c.Parallel, c.CtxBeyondTrain = qwenTemplate(t), 1024, 1, true
	})
	body := jsonf(`{"messages": [{"role": "user", "content": "weather?"},
		{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
		{"role": "tool", "tool_call_id": "c1", "content": "sunny"}], "tools": %s}`, toolsJSON)
	code, m := ts.post(t, "/apply-template", body)
	if code != 200 {
		t.Fatalf("status %d %v", code, m)
	}
	p := m["prompt"].(string)
	for _, want := range []string{`"name": "get_weather"`, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>",
		"<tool_response>\nsunny\n</tool_response>"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

func TestToolBadRequests(t *testing.T) {
	ts := newTestServer(t, nil)
	msgs := `"messages": [{"role": "user", "content": "x"}]`
	cases := []struct{ body, param string }{
		{`{` + msgs + `, "tools": {"a": 1}}`, "tools"},
		{`{` + msgs + `, "tools": ` + toolsJSON + `, "tool_choice": "sometimes"}`, "tool_choice"},
		{`{` + msgs + `, "tools": ` + toolsJSON + `, "tool_choice": {"type": "function", "function": {"name": "nope"}}}`, "tool_choice"},
		{`{` + msgs + `, "tool_choice": "required"}`, "tool_choice"},
		{`{` + msgs + `, "tools": ` + toolsJSON + `, "grammar": "root ::= \"a\""}`, "grammar"},
		{`{` + msgs + `, "tools": ` + toolsJSON + `, "response_format": {"type": "json_object"}}`, "response_format"},
		{`{` + msgs + `, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "bogus"}}}], "tool_choice": "required"}`, "json_schema"},
	}
	for _, c := range cases {
		code, m := ts.post(t, "/v1/chat/completions", c.body)
		if code != 400 || errorOf(t, m)["param"] != c.param {
			t.Errorf("%s: status %d %v, want 400 naming %q", c.body, code, m, c.param)
		}
	}
}
