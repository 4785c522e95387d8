package server

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMessagesNonStream(t *testing.T) {
	ts := newTestServer(t, nil)
	want := chatText(t, ts, `[{"role":"system","content":"sys"},{"role":"user","content":"hi"}]`, 6)
	code, m := ts.post(t, "/v1/messages", `{"model":"claude-x","system":[{"type":"text","text":"sys"}],"max_tokens":6,"temperature":0,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	if code != 200 {
		t.Fatalf("status %d: %v", code, m)
	}
	blocks := m["content"].([]any)
	if m["type"] != "message" || m["role"] != "assistant" || m["model"] != ts.ModelID() || !strings.HasPrefix(m["id"].(string), "msg_") {
		t.Fatalf("shape %v", m)
	}
	if len(blocks) != 1 || blocks[0].(map[string]any)["type"] != "text" || blocks[0].(map[string]any)["text"] != want {
		t.Fatalf("content %v, want the chat answer %q", blocks, want)
	}
	if m["stop_reason"] != "max_tokens" || m["stop_sequence"] != nil {
		t.Fatalf("stop %v %v", m["stop_reason"], m["stop_sequence"])
	}
	u := m["usage"].(map[string]any)
	if u["output_tokens"].(float64) != 6 || u["input_tokens"].(float64) <= 0 {
		t.Fatalf("usage %v", u)
	}

	// A stop sequence taken from the answer cuts it there.
	stop := strings.TrimSpace(want)[2:4]
	code, m = ts.post(t, "/v1/messages", jsonf(`{"max_tokens":6,"temperature":0,"system":"sys","stop_sequences":[%q],"messages":[{"role":"user","content":"hi"}]}`, stop))
	text := m["content"].([]any)[0].(map[string]any)["text"].(string)
	if code != 200 || m["stop_reason"] != "stop_sequence" || m["stop_sequence"] != stop || text != want[:strings.Index(want, stop)] {
		t.Fatalf("stop %q: %d %v", stop, code, m)
	}
}

func TestMessagesStream(t *testing.T) {
	ts := newTestServer(t, nil)
	want := chatText(t, ts, `[{"role":"user","content":"hi"}]`, 5)
	code, body := ts.do(t, "POST", "/v1/messages", `{"max_tokens":5,"temperature":0,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	names, data := sseNamed(t, body)
	n := len(names)
	if n < 6 || names[0] != "message_start" || names[1] != "content_block_start" || names[n-3] != "content_block_stop" || names[n-2] != "message_delta" || names[n-1] != "message_stop" {
		t.Fatalf("event sequence %v", names)
	}
	var text string
	for i, d := range data[2 : n-3] {
		delta := d["delta"].(map[string]any)
		if names[i+2] != "content_block_delta" || d["index"].(float64) != 0 || delta["type"] != "text_delta" {
			t.Fatalf("event %d: %s %v", i+2, names[i+2], d)
		}
		text += delta["text"].(string)
	}
	if text != want {
		t.Fatalf("streamed %q, want %q", text, want)
	}
	md := data[n-2]
	if md["delta"].(map[string]any)["stop_reason"] != "max_tokens" || md["usage"].(map[string]any)["output_tokens"].(float64) != 5 {
		t.Fatalf("message_delta %v", md)
	}
	if msg := data[0]["message"].(map[string]any); msg["role"] != "assistant" || len(msg["content"].([]any)) != 0 {
		t.Fatalf("message_start %v", msg)
	}
}

func TestMessagesThinking(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ChatTemplate = thinkTemplate })
	code, m := ts.post(t, "/v1/messages", `{"max_tokens":4,"temperature":0,"messages":[{"role":"user","content":"hi"}]}`)
	b := m["content"].([]any)[0].(map[string]any)
	if code != 200 || b["type"] != "thinking" || b["thinking"] == "" {
		t.Fatalf("%d: content %v, want a thinking block", code, m["content"])
	}
	_, body := ts.do(t, "POST", "/v1/messages", `{"max_tokens":4,"temperature":0,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	names, data := sseNamed(t, body)
	n := len(names)
	if data[1]["content_block"].(map[string]any)["type"] != "thinking" || data[n-4]["delta"].(map[string]any)["type"] != "signature_delta" {
		t.Fatalf("thinking stream %v", names)
	}
	var text string
	for _, d := range data[2 : n-4] {
		text += d["delta"].(map[string]any)["thinking"].(string)
	}
	if text != b["thinking"] {
		t.Fatalf("streamed thinking %q, want %q", text, b["thinking"])
	}
}

func TestMessagesConversion(t *testing.T) {
	r, _, _, e := messagesRequest([]byte(`{"system":"x-anthropic-billing-header: cc_version=2; cch=a5145; You are Claude.",
		"messages":[{"role":"user","content":"q"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"f","input":{"x":1}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"42"}]},{"type":"text","text":"thanks"}]}],
		"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}],"stop_sequences":["END"],"top_k":3}`))
	if e != nil {
		t.Fatal(e)
	}
	var got []string
	for _, m := range r.Messages {
		var s string
		_ = json.Unmarshal(m.Content, &s)
		got = append(got, m.Role+":"+s)
	}
	want := "system:x-anthropic-billing-header: cc_version=2; cch=fffff; You are Claude.|user:q|assistant:a|user:thanks|tool:42"
	if strings.Join(got, "|") != want {
		t.Fatalf("messages %q\nwant %q", strings.Join(got, "|"), want)
	}
	a := r.Messages[2]
	if a.ReasoningContent != "hm" || !strings.Contains(string(a.ToolCalls), `"arguments":"{\"x\":1}"`) || r.Messages[4].ToolCallID != "t1" {
		t.Fatalf("assistant %+v, tool %+v", a, r.Messages[4])
	}
	if *r.MaxTokens != defaultAnthropicMaxTokens || string(r.Stop) != `["END"]` || *r.TopK != 3 || !strings.Contains(string(r.Tools), `"parameters":{"type":"object"}`) {
		t.Fatalf("max_tokens %d stop %s top_k %v tools %s", *r.MaxTokens, r.Stop, r.TopK, r.Tools)
	}
}

func TestMessagesRefusalsAndCount(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, body := range []string{
		`{}`, `{"messages":[]}`, `{"messages":"hi"}`,
		`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA=="}}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"mystery"}]}]}`,
		`{"system":[{"type":"image"}],"messages":[{"role":"user","content":"x"}]}`,
		`{"messages":[{"role":"user","content":"x"}],"max_tokens":-5}`,
		`{"messages":[{"role":"user","content":"x"}],"bogus":1}`,
		`{"messages":[{"role":"user","content":"x"}],"stop":["a"]}`,
		`{"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"any"}}`,
		`{"messages":[{"role":"user","content":"x"}],"thinking":{"type":"enabled","budget_tokens":0}}`,
		`{"messages":[{"role":"user","content":"x"}],"thinking":{"type":"maybe"}}`,
	} {
		code, m := ts.post(t, "/v1/messages", body)
		if code != 400 {
			t.Fatalf("%s: status %d, want 400: %v", body, code, m)
		}
		errorOf(t, m)
	}
	code, m := ts.post(t, "/v1/chat/completions", `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"hello there"}],"max_tokens":1}`)
	if code != 200 {
		t.Fatal(m)
	}
	want := m["usage"].(map[string]any)["prompt_tokens"].(float64)
	code, m = ts.post(t, "/v1/messages/count_tokens", `{"system":"s","messages":[{"role":"user","content":"hello there"}]}`)
	if code != 200 || m["input_tokens"].(float64) != want {
		t.Fatalf("count_tokens %d %v, want %v", code, m, want)
	}
}

// TestMessagesThinkingBudget: thinking.budget_tokens is the request's
// reasoning budget: past it the server closes the thought and the answer
// goes on as text; metadata is accepted and ignored.
func TestMessagesThinkingBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ChatTemplate, c.ReasoningBudget = thinkTemplate, -1 })
	kinds := func(body string) []string {
		code, m := ts.post(t, "/v1/messages", body)
		if code != 200 {
			t.Fatalf("%s: %d %v", body, code, m)
		}
		var out []string
		for _, b := range m["content"].([]any) {
			out = append(out, b.(map[string]any)["type"].(string))
		}
		return out
	}
	base := `{"max_tokens":16,"temperature":0,"metadata":{"user_id":"u"},"messages":[{"role":"user","content":"hi"}]`
	if got := kinds(base + `}`); strings.Join(got, ",") != "thinking" {
		t.Fatalf("without a budget: blocks %v, want all thinking", got)
	}
	if got := kinds(base + `,"thinking":{"type":"enabled","budget_tokens":2}}`); strings.Join(got, ",") != "thinking,text" {
		t.Fatalf("budget 2: blocks %v, want thinking then text", got)
	}
}
