package chat

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine/grammar"
)

var testTools = json.RawMessage(`[
 {"type": "function", "function": {"name": "get_weather", "description": "Weather now",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}}, "required": ["city"]}}},
 {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}]`)

func mustTools(t *testing.T) []Tool {
	t.Helper()
	tools, err := ParseTools(testTools)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("call_%d", n) }
}

// parseAll feeds text in pieces of size n and joins what comes out.
func parseAll(f ToolFormat, tools []Tool, text string, n int) (string, []ToolCall) {
	p := NewToolParser(f, tools, seqIDs())
	var content strings.Builder
	var calls []ToolCall
	for i := 0; i < len(text); i += n {
		c, cs := p.Add(text[i:min(i+n, len(text))])
		content.WriteString(c)
		calls = append(calls, cs...)
	}
	c, cs := p.Flush()
	content.WriteString(c)
	return content.String(), append(calls, cs...)
}

// Each family's output parses into the same content and calls whether it
// arrives whole or one byte at a time.
func TestToolParser(t *testing.T) {
	tools := mustTools(t)
	weather := ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city": "Paris", "days": 2}`}
	cases := []struct {
		f       ToolFormat
		text    string
		content string
		calls   []ToolCall
	}{
		{ToolsHermes, " \nLet me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>",
			"Let me check.\n", []ToolCall{weather}},
		{ToolsHermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>",
			"", []ToolCall{weather, {ID: "call_2", Name: "ping", Arguments: "{}"}}},
		{ToolsHermes, "no tools <tool here", "no tools <tool here", nil},
		{ToolsHermes, "<tool_call>{\"name\": \"nope\"}</tool_call>", "<tool_call>{\"name\": \"nope\"}</tool_call>", nil},
		{ToolsHermes, "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}", "", []ToolCall{{ID: "call_1", Name: "ping", Arguments: "{}"}}},
		{ToolsHermes, "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}", "", []ToolCall{{ID: "call_1", Name: "ping", Arguments: "{}"}}},
		{ToolsHermes, "<tool_call>\n{\"name\": \"ping\", \"argu", "", nil},
		{ToolsHermes, "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}</tool_call> <tool_c", "", []ToolCall{{ID: "call_1", Name: "ping", Arguments: "{}"}}},
		{ToolsLlama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"days\": 2}}", "", []ToolCall{weather}},
		{ToolsLlama3, "<|python_tag|>{\"name\": \"ping\", \"parameters\": {}}", "", []ToolCall{{ID: "call_1", Name: "ping", Arguments: "{}"}}},
		{ToolsLlama3, "It is sunny.", "It is sunny.", nil},
		{ToolsMistral, "Sure[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}, \"id\": \"abcdefghi\"}]",
			"Sure", []ToolCall{{ID: "abcdefghi", Name: "get_weather", Arguments: `{"city": "Paris", "days": 2}`}}},
		{ToolsHermes, "<tool_call>\n { \"name\" : \"ping\" , \"arguments\" : { } } , {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>",
			"", []ToolCall{{ID: "call_1", Name: "ping", Arguments: "{ }"}, {ID: "call_2", Name: "get_weather", Arguments: `{"city": "Paris", "days": 2}`}}},
		{ToolsGeneric, "{\"tool_call\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}}", "", []ToolCall{weather}},
		{ToolsGeneric, "{\"response\": \"Hello!\"}", "Hello!", nil},
	}
	for _, c := range cases {
		for _, n := range []int{len(c.text), 1, 3} {
			content, calls := parseAll(c.f, tools, c.text, n)
			if content != c.content || !reflect.DeepEqual(calls, c.calls) {
				t.Errorf("%v %q in pieces of %d:\n got %q %+v\nwant %q %+v", c.f, c.text, n, content, calls, c.content, c.calls)
			}
		}
	}
}

// Every family's grammar parses, and it accepts the family's call.
func TestToolGrammars(t *testing.T) {
	tools := mustTools(t)
	for _, f := range []ToolFormat{ToolsGeneric, ToolsHermes, ToolsLlama3, ToolsMistral} {
		for _, choice := range []ToolChoice{{Mode: "auto"}, {Mode: "required"}, {Mode: "function", Name: "ping"}} {
			for _, parallel := range []bool{false, true} {
				tg, err := f.Grammar(tools, choice, parallel)
				if err != nil {
					t.Fatalf("%v %v: %v", f, choice, err)
				}
				if _, err := grammar.Parse(tg.Source, nil); err != nil {
					t.Fatalf("%v %v: %v\n%s", f, choice, err, tg.Source)
				}
				lazy := len(tg.Triggers) > 0
				if lazy != (choice.Mode == "auto" && f != ToolsGeneric) {
					t.Errorf("%v %v: lazy %v", f, choice, lazy)
				}
			}
		}
	}
}

func TestParseToolChoice(t *testing.T) {
	tools := mustTools(t)
	for raw, want := range map[string]ToolChoice{
		``: {Mode: "auto"}, `"none"`: {Mode: "none"}, `"required"`: {Mode: "required"},
		`{"type": "function", "function": {"name": "ping"}}`: {Mode: "function", Name: "ping"},
	} {
		got, err := ParseToolChoice(json.RawMessage(raw), tools)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v", raw, got, err)
		}
	}
	for _, raw := range []string{`"always"`, `{"type": "function", "function": {"name": "nope"}}`, `42`} {
		if _, err := ParseToolChoice(json.RawMessage(raw), tools); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
	for _, raw := range []string{`{}`, `[{"type": "code"}]`, `[{"type": "function", "function": {}}]`,
		`[{"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"name": "a"}}]`} {
		if _, err := ParseTools(json.RawMessage(raw)); err == nil {
			t.Errorf("tools %s accepted", raw)
		}
	}
}

// Arguments sent as a JSON string reach the template as an object, so
// tojson writes the object once (a string would be quoted twice); other
// strings stay.
func TestToolCallArgumentsAsObjects(t *testing.T) {
	calls := json.RawMessage(`[{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"z\": 1, \"a\": 2}"}},
		{"id": "b", "type": "function", "function": {"name": "g", "arguments": "not json"}}]`)
	got := render(t, `{% for c in messages[0].tool_calls %}{{ c.function.arguments | tojson }};{% endfor %}`,
		Inputs{Messages: []Message{{Role: "assistant", ToolCalls: calls}}})
	if want := `{"z": 1, "a": 2};"not json";`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// The JSON of a response_format answer comes out without the blanks before
// it and without the fence, whole or byte by byte.
func TestJSONAnswer(t *testing.T) {
	cases := map[string]string{
		"  {\"a\": 1} \n":                 "{\"a\": 1} \n",
		"\n```json\n{\"a\": \"x`\"}\n```": "{\"a\": \"x`\"}\n",
		"```json [1, 2] ```":              "[1, 2] ",
		"42":                              "42",
	}
	for in, want := range cases {
		for _, n := range []int{len(in), 1, 2} {
			var a JSONAnswer
			var out strings.Builder
			for i := 0; i < len(in); i += n {
				out.WriteString(a.Add(in[i:min(i+n, len(in))]))
			}
			out.WriteString(a.Flush())
			if out.String() != want {
				t.Errorf("%q in pieces of %d: %q, want %q", in, n, out.String(), want)
			}
		}
	}
}
