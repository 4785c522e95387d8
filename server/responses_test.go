package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// sseNamed splits an SSE body into (event name, data) pairs and checks
// that every event is named and that its data's "type" is the name.
func sseNamed(t *testing.T, body string) (names []string, data []map[string]any) {
	t.Helper()
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		lines := strings.Split(block, "\n")
		name, ok := strings.CutPrefix(lines[0], "event: ")
		if !ok || len(lines) != 2 {
			t.Fatalf("block is not one named event: %q", block)
		}
		d, ok := strings.CutPrefix(lines[1], "data: ")
		if !ok {
			t.Fatalf("no data line: %q", block)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if m["type"] != name {
			t.Fatalf("event %s carries type %v", name, m["type"])
		}
		names, data = append(names, name), append(data, m)
	}
	return names, data
}

// chatText is the greedy chat answer to messages, for comparison.
func chatText(t *testing.T, ts *testServer, messages string, maxTokens int) string {
	t.Helper()
	code, m := ts.post(t, "/v1/chat/completions", jsonf(`{"messages":%s,"max_tokens":%d,"temperature":0}`, messages, maxTokens))
	if code != 200 {
		t.Fatalf("chat: %d %v", code, m)
	}
	return m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
}

func TestResponsesNonStream(t *testing.T) {
	ts := newTestServer(t, nil)
	want := chatText(t, ts, `[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]`, 6)
	code, m := ts.post(t, "/v1/responses", `{"model":"m","input":"hi","instructions":"Be brief.","max_output_tokens":6,"temperature":0}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	if m["object"] != "response" || !strings.HasPrefix(m["id"].(string), "resp_") || m["model"] != ts.ModelID() {
		t.Fatalf("shape: %v", m)
	}
	if m["status"] != "incomplete" || m["incomplete_details"].(map[string]any)["reason"] != "max_output_tokens" {
		t.Fatalf("six tokens cut by max_output_tokens: status %v, %v", m["status"], m["incomplete_details"])
	}
	out := m["output"].([]any)
	item := out[0].(map[string]any)
	part := item["content"].([]any)[0].(map[string]any)
	if len(out) != 1 || item["type"] != "message" || item["role"] != "assistant" || item["status"] != "incomplete" || part["type"] != "output_text" || part["text"] != want {
		t.Fatalf("output %v, want one message with %q", out, want)
	}
	u := m["usage"].(map[string]any)
	if u["output_tokens"].(float64) != 6 || u["total_tokens"].(float64) != u["input_tokens"].(float64)+6 {
		t.Fatalf("usage %v", u)
	}
	if m["instructions"] != "Be brief." || m["max_output_tokens"].(float64) != 6 {
		t.Fatalf("request fields not echoed: %v %v", m["instructions"], m["max_output_tokens"])
	}
}

func TestResponsesStream(t *testing.T) {
	ts := newTestServer(t, nil)
	want := chatText(t, ts, `[{"role":"user","content":"hi"}]`, 5)
	code, body := ts.do(t, "POST", "/v1/responses", `{"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],"max_output_tokens":5,"temperature":0,"stream":true}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	names, data := sseNamed(t, body)
	head := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"}
	tail := []string{"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.incomplete"}
	if len(names) < len(head)+len(tail)+1 || strings.Join(names[:4], " ") != strings.Join(head, " ") || strings.Join(names[len(names)-4:], " ") != strings.Join(tail, " ") {
		t.Fatalf("event sequence %v", names)
	}
	var text string
	for i, d := range data {
		if d["sequence_number"].(float64) != float64(i) {
			t.Fatalf("event %d has sequence_number %v", i, d["sequence_number"])
		}
		if names[i] == "response.output_text.delta" {
			if d["output_index"].(float64) != 0 || d["content_index"].(float64) != 0 || d["item_id"] != data[2]["item"].(map[string]any)["id"] {
				t.Fatalf("delta coordinates %v", d)
			}
			text += d["delta"].(string)
		} else if i >= 4 && i < len(names)-4 {
			t.Fatalf("unexpected event %s between the deltas", names[i])
		}
	}
	if text != want || data[len(data)-4]["text"] != want {
		t.Fatalf("streamed %q (done says %q), want %q", text, data[len(data)-4]["text"], want)
	}
	created := data[0]["response"].(map[string]any)
	final := data[len(data)-1]["response"].(map[string]any)
	if created["status"] != "in_progress" || len(created["output"].([]any)) != 0 || final["id"] != created["id"] {
		t.Fatalf("created %v final %v", created, final)
	}
	part := final["output"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)
	if part["text"] != want || final["usage"].(map[string]any)["output_tokens"].(float64) != 5 {
		t.Fatalf("final response %v", final)
	}
}

// thinkTemplate (native_test.go) opens a <think> block at the end of the
// prompt, so the demo model's whole answer is reasoning.
func TestResponsesReasoning(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ChatTemplate = thinkTemplate })
	code, m := ts.post(t, "/v1/responses", `{"input":"hi","max_output_tokens":4,"temperature":0}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	item := m["output"].([]any)[0].(map[string]any)
	part := item["content"].([]any)[0].(map[string]any)
	if item["type"] != "reasoning" || part["type"] != "reasoning_text" || part["text"] == "" {
		t.Fatalf("output %v, want a reasoning item", m["output"])
	}
	_, body := ts.do(t, "POST", "/v1/responses", `{"input":"hi","max_output_tokens":4,"temperature":0,"stream":true}`)
	names, data := sseNamed(t, body)
	var text string
	for i, n := range names {
		if n == "response.reasoning_text.delta" {
			text += data[i]["delta"].(string)
		}
		if n == "response.output_text.delta" {
			t.Fatal("text deltas in an answer that is all reasoning")
		}
	}
	if names[3] != "response.content_part.added" || data[3]["part"].(map[string]any)["type"] != "reasoning_text" || text != part["text"] {
		t.Fatalf("reasoning stream %v: %q, want %q", names, text, part["text"])
	}
}

func TestResponsesInput(t *testing.T) {
	cases := []struct {
		body string
		want string // the chat messages as role:content|…
	}{
		{`{"input":"hi"}`, "user:hi"},
		{`{"instructions":"sys","input":[{"role":"developer","content":"dev"},{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}]}`,
			"system:sys|developer:dev|user:a\nb"},
		{`{"input":[{"role":"user","content":"q"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]},{"role":"assistant","content":"y"}]}`,
			"user:q|assistant:x\ny"},
		{`{"input":[{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"think"}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"42"}]}`,
			"assistant:|tool:42"},
	}
	for _, c := range cases {
		r, _, e := responsesRequest([]byte(c.body))
		if e != nil {
			t.Fatalf("%s: %v", c.body, e)
		}
		var got []string
		for _, m := range r.Messages {
			var s string
			_ = json.Unmarshal(m.Content, &s)
			got = append(got, m.Role+":"+s)
		}
		if strings.Join(got, "|") != c.want {
			t.Fatalf("%s: messages %q, want %q", c.body, strings.Join(got, "|"), c.want)
		}
	}
	r, _, _ := responsesRequest([]byte(cases[3].body))
	a := r.Messages[0]
	if a.ReasoningContent != "think" || !strings.Contains(string(a.ToolCalls), `"id":"c1"`) || r.Messages[1].ToolCallID != "c1" {
		t.Fatalf("reasoning and function call not carried: %+v", r.Messages)
	}
	r, _, _ = responsesRequest([]byte(`{"input":"x","max_output_tokens":7,"max_tokens":3,"tools":[{"type":"function","name":"f","parameters":{}}],"text":{"format":{"type":"text"}},"truncation":"disabled","store":false}`))
	if *r.MaxTokens != 7 || !strings.Contains(string(r.Tools), `"function":{`) {
		t.Fatalf("max_output_tokens %v, tools %s", *r.MaxTokens, r.Tools)
	}
}

func TestResponsesRefusals(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, body := range []string{
		`{}`, `{"input":3}`, `{"input":"x","previous_response_id":"resp_1"}`,
		`{"input":[{"role":"user","content":[{"type":"input_image","image_url":"http://x"}]}]}`,
		`{"input":[{"type":"mystery"}]}`, `{"input":[{"type":"function_call","name":"f"}]}`,
		`{"input":"x","tools":[{"type":"web_search"}]}`, `{"input":"x","n":2}`, `[]`,
		`{"input":"x","bogus":1}`, `{"input":"x","text":{"format":{"type":"json_schema"}}}`, `{"input":"x","truncation":"auto"}`,
		`{"input":"x","prompt":{"id":"p"}}`, `{"input":"x","messages":[]}`, `{"input":"x","background":true}`,
	} {
		code, m := ts.post(t, "/v1/responses", body)
		if code != 400 {
			t.Fatalf("%s: status %d, want 400: %v", body, code, m)
		}
		errorOf(t, m)
	}
}
