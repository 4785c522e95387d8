package chat

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func render(t *testing.T, src string, in Inputs) string {
	t.Helper()
	tpl, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tpl.Render(in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var convo = []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}

func TestBuiltinChatML(t *testing.T) {
	got := render(t, "chatml", Inputs{Messages: convo, AddGenerationPrompt: true})
	want := "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := render(t, "chatml", Inputs{Messages: convo}); strings.HasSuffix(got, "assistant\n") {
		t.Fatalf("generation prompt added without add_generation_prompt: %q", got)
	}
}

func TestBuiltinLlama3AndLlama2(t *testing.T) {
	got := render(t, "llama-3", Inputs{Messages: convo, AddGenerationPrompt: true, BOS: "<|begin_of_text|>"})
	want := "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	if got != want {
		t.Fatalf("llama3: got %q\nwant %q", got, want)
	}
	got = render(t, "llama2", Inputs{Messages: convo, BOS: "<s>", EOS: "</s>"})
	if want := "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]"; got != want {
		t.Fatalf("llama2: got %q\nwant %q", got, want)
	}
}

func TestQwenThinkingSwitch(t *testing.T) {
	on := render(t, "qwen", Inputs{Messages: convo[1:], AddGenerationPrompt: true})
	off := render(t, "qwen", Inputs{Messages: convo[1:], AddGenerationPrompt: true, Kwargs: map[string]any{"enable_thinking": false}})
	if strings.Contains(on, "<think>") || !strings.HasSuffix(off, "<think>\n\n</think>\n\n") {
		t.Fatalf("enable_thinking not honoured:\non=%q\noff=%q", on, off)
	}
}

func TestJinjaExtras(t *testing.T) {
	src := `{% for m in messages %}{% if m.role == 'system' %}{% continue %}{% endif %}{{ m.get('role') }}={{ m.get('missing', 'dflt') }};{% if loop.index > 5 %}{% break %}{% endif %}{% endfor %}{{ strftime_now('%d %b %Y') }}`
	got := render(t, src, Inputs{Messages: convo, Now: time.Date(2026, 7, 4, 0, 0, 0, 0, time.UTC)})
	if want := "user=dflt;04 Jul 2026"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	tpl, err := Parse(`{{ raise_exception('no system role') }}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.Render(Inputs{}); err == nil || !strings.Contains(err.Error(), "no system role") {
		t.Fatalf("raise_exception: %v", err)
	}
}

func TestToJSONPythonStyleKeepsOrder(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"get","description":"é <x>","parameters":{"z":1,"a":[1.5,true,null]}}}]`)
	got := render(t, `{{ tools | tojson }}|{{ {'b': 1, 'a': 2} | tojson }}`, Inputs{Tools: tools})
	want := `[{"type": "function", "function": {"name": "get", "description": "é <x>", "parameters": {"z": 1, "a": [1.5, true, null]}}}]|{"b": 1, "a": 2}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestTemplateCannotIncludeFiles(t *testing.T) {
	tpl, err := Parse(`{% include '/etc/passwd' %}`)
	if err == nil {
		_, err = tpl.Render(Inputs{})
	}
	if err == nil {
		t.Fatal("include of a file on disk was allowed")
	}
}

func TestBadTemplatesGiveErrors(t *testing.T) {
	for _, src := range []string{"", "{% for %}", "{{ messages[ }}", "{% if x %}"} {
		if tpl, err := Parse(src); err == nil {
			if _, err := tpl.Render(Inputs{Messages: convo}); err == nil {
				t.Errorf("%q: no error", src)
			}
		}
	}
}

func TestReasoningSplit(t *testing.T) {
	cases := []struct {
		in, format    string
		inThink       bool
		content, reas string
	}{
		{"<think>\nhmm, ok\n</think>\n\nAnswer.", "deepseek", false, "Answer.", "hmm, ok"},
		{"<think>hmm</think>Answer.", "none", false, "<think>hmm</think>Answer.", ""},
		{"hmm\n</think>\nAnswer", "auto", true, "Answer", "hmm"},
		{"Plain answer", "deepseek", false, "Plain answer", ""},
		{"<think>unfinished", "deepseek", false, "", "unfinished"},
		{"a < b </thin", "deepseek", true, "", "a < b </thin"},
	}
	for _, c := range cases {
		content, reas := SplitReasoning(c.in, c.format, c.inThink)
		if content != c.content || reas != c.reas {
			t.Errorf("%q: got (%q, %q) want (%q, %q)", c.in, content, reas, c.content, c.reas)
		}
		// Streaming byte by byte gives the same split.
		r := NewReasoning(c.format, c.inThink)
		var sc, sr string
		for i := range len(c.in) {
			a, b := r.Add(c.in[i : i+1])
			sc, sr = sc+a, sr+b
		}
		a, b := r.Flush()
		if sc+a != c.content || sr+b != c.reas {
			t.Errorf("%q streamed: got (%q, %q)", c.in, sc+a, sr+b)
		}
	}
}

func FuzzReasoning(f *testing.F) {
	f.Add("<think>x</think>y", 3)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		whole, wr := SplitReasoning(s, "deepseek", false)
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		r := NewReasoning("deepseek", false)
		c1, r1 := r.Add(s[:cut])
		c2, r2 := r.Add(s[cut:])
		c3, r3 := r.Flush()
		if c1+c2+c3 != whole || r1+r2+r3 != wr {
			t.Fatalf("split at %d differs: (%q,%q) vs (%q,%q)", cut, c1+c2+c3, r1+r2+r3, whole, wr)
		}
	})
}
