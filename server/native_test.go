package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNativeFormat: POST /completion and /completions answer in
// llama-server's native format: tokens only with return_tokens, the full
// generation_settings, prompt, has_new_line, and a streamed last event
// with stop:true and the timings.
func TestNativeFormat(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, path := range []string{"/completion", "/completions"} {
		code, m := ts.post(t, path, `{"prompt":"once upon","n_predict":4,"temperature":0.5,"top_k":7,"stop":["zzz"],"seed":3}`)
		if code != 200 || m["stop"] != true || m["choices"] != nil {
			t.Fatalf("%s: %d %v", path, code, m)
		}
		if toks := m["tokens"].([]any); len(toks) != 0 {
			t.Errorf("%s: tokens without return_tokens: %v", path, toks)
		}
		gs := m["generation_settings"].(map[string]any)
		for k, want := range map[string]any{"temperature": 0.5, "top_k": 7.0, "n_predict": 4.0, "seed": 3.0, "stream": false} {
			if gs[k] != want {
				t.Errorf("%s: generation_settings[%s] = %v, want %v", path, k, gs[k], want)
			}
		}
		for _, k := range []string{"stop", "samplers", "mirostat", "dry_multiplier", "xtc_probability", "n_keep", "speculative.n_max", "reasoning_format", "grammar", "logit_bias"} {
			if _, ok := gs[k]; !ok {
				t.Errorf("%s: generation_settings lacks %s", path, k)
			}
		}
		if !strings.HasPrefix(m["prompt"].(string), "<s>") || m["has_new_line"] == nil || m["stop_type"] != "limit" {
			t.Errorf("%s: prompt %q has_new_line %v stop_type %v", path, m["prompt"], m["has_new_line"], m["stop_type"])
		}
	}
	_, m := ts.post(t, "/completion", `{"prompt":"once upon","n_predict":4,"return_tokens":true}`)
	if toks := m["tokens"].([]any); len(toks) != 4 {
		t.Errorf("return_tokens: %v", toks)
	}
	for _, extra := range []string{"", `,"return_tokens":true`} {
		_, body := ts.do(t, "POST", "/completions", `{"prompt":"once upon","n_predict":4,"stream":true`+extra+`}`)
		ev := sseEvents(t, body)
		var last map[string]any
		ntok := 0
		for _, e := range ev {
			var c map[string]any
			if err := json.Unmarshal([]byte(e), &c); err != nil {
				t.Fatal(err)
			}
			ntok += len(c["tokens"].([]any))
			last = c
		}
		if last["stop"] != true || last["timings"] == nil || strings.Contains(body, "[DONE]") {
			t.Errorf("native stream%s: last event %v", extra, last)
		}
		if (ntok == 4) != (extra != "") {
			t.Errorf("native stream%s: %d tokens", extra, ntok)
		}
	}
}

// TestStreamLastChunkTimings: the last chunk before [DONE] of a chat or
// completions stream carries the timings, with and without include_usage.
func TestStreamLastChunkTimings(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, req := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true%s}`},
		{"/v1/completions", `{"prompt":"hi","max_tokens":3,"stream":true%s}`},
	} {
		for _, usage := range []string{"", `,"stream_options":{"include_usage":true}`} {
			_, body := ts.do(t, "POST", req.path, jsonf(req.body, usage))
			ev := sseEvents(t, body)
			var last map[string]any
			if err := json.Unmarshal([]byte(ev[len(ev)-2]), &last); err != nil || ev[len(ev)-1] != "[DONE]" {
				t.Fatalf("%s: %v", req.path, ev)
			}
			tm, _ := last["timings"].(map[string]any)
			if tm == nil || tm["predicted_n"].(float64) < 1 || (usage != "") != (last["usage"] != nil) {
				t.Errorf("%s%s: last chunk %v", req.path, usage, last)
			}
		}
	}
}

// thinkTemplate ends its generation prompt inside a thought, as Qwen3's
// and DeepSeek-R1's templates do.
const thinkTemplate = `{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|><think>
{% endif %}`

// TestReasoningNoneKeepsThinkOpener: with reasoning_format none the
// content starts with the <think> the prompt opened (llama-server's
// answer); with deepseek the thought moves to reasoning_content and
// usage counts it in completion_tokens_details.reasoning_tokens.
func TestReasoningNoneKeepsThinkOpener(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ChatTemplate, c.ReasoningBudget = thinkTemplate, -1 })
	req := `{"messages":[{"role":"user","content":"hi"}],"max_tokens":4,"temperature":0,"reasoning_format":%q%s}`
	_, m := ts.post(t, "/v1/chat/completions", jsonf(req, "none", ""))
	msg := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if !strings.HasPrefix(msg["content"].(string), "<think>\n") || msg["reasoning_content"] != nil {
		t.Errorf("none: message %v", msg)
	}
	_, body := ts.do(t, "POST", "/v1/chat/completions", jsonf(req, "none", `,"stream":true`))
	var content string
	for _, e := range sseEvents(t, body) {
		var c struct {
			Choices []struct {
				Delta struct{ Content *string } `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(e), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
			content += *c.Choices[0].Delta.Content
		}
	}
	if content != msg["content"] {
		t.Errorf("none, streamed: %q, whole: %q", content, msg["content"])
	}
	_, m = ts.post(t, "/v1/chat/completions", jsonf(req, "deepseek", ""))
	msg = m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	u := m["usage"].(map[string]any)
	if strings.Contains(msg["content"].(string), "<think>") || msg["reasoning_content"] == "" {
		t.Errorf("deepseek: message %v", msg)
	}
	if d := u["completion_tokens_details"].(map[string]any); d["reasoning_tokens"] != u["completion_tokens"] {
		t.Errorf("deepseek: usage %v (every token is inside the thought)", u)
	}
}
