package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/engine/grammar"
)

// Tool is one function a request offers ("tools": [{"type": "function",
// "function": {...}}]).
type Tool struct {
	Name        string
	Description string
	Parameters  *grammar.Value // a JSON schema; an empty object when absent
}

// MaxTools bounds the functions one request may offer.
const MaxTools = 128

// ParseTools reads the OpenAI tools array. Entries whose type is not
// "function" are an error (llama.cpp skips them silently).
func ParseTools(raw json.RawMessage) ([]Tool, error) {
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return nil, nil
	}
	v, err := grammar.ParseJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("tools is not valid JSON: %v", err)
	}
	if v.Kind != grammar.Array {
		return nil, fmt.Errorf("tools must be an array")
	}
	if len(v.Arr) > MaxTools {
		return nil, fmt.Errorf("at most %d tools per request", MaxTools)
	}
	var out []Tool
	seen := map[string]bool{}
	for i, t := range v.Arr {
		if typ := t.Get("type"); typ == nil || typ.Kind != grammar.String || typ.Str != "function" {
			return nil, fmt.Errorf("tools[%d].type must be \"function\"", i)
		}
		f := t.Get("function")
		if f == nil || f.Kind != grammar.Object {
			return nil, fmt.Errorf("tools[%d].function must be an object", i)
		}
		name := f.Get("name")
		if name == nil || name.Kind != grammar.String || name.Str == "" {
			return nil, fmt.Errorf("tools[%d].function.name must be a non-empty string", i)
		}
		if seen[name.Str] {
			return nil, fmt.Errorf("tools[%d]: function %q is offered twice", i, name.Str)
		}
		seen[name.Str] = true
		tool := Tool{Name: name.Str, Parameters: f.Get("parameters")}
		if d := f.Get("description"); d != nil && d.Kind == grammar.String {
			tool.Description = d.Str
		}
		if tool.Parameters == nil {
			tool.Parameters = &grammar.Value{Kind: grammar.Object}
		} else if tool.Parameters.Kind != grammar.Object {
			return nil, fmt.Errorf("tools[%d].function.parameters must be a JSON schema object", i)
		}
		out = append(out, tool)
	}
	return out, nil
}

// ToolChoice is "auto", "none", "required", or a named function.
type ToolChoice struct {
	Mode string // auto, none, required, function
	Name string // Mode function: the one function to call
}

// ParseToolChoice reads tool_choice: a string, or {"type": "function",
// "function": {"name": …}}; empty means auto.
func ParseToolChoice(raw json.RawMessage, tools []Tool) (ToolChoice, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ToolChoice{Mode: "auto"}, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch mode {
		case "auto", "none", "required":
			return ToolChoice{Mode: mode}, nil
		}
		return ToolChoice{}, fmt.Errorf(`tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": …}}, got %q`, mode)
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" || named.Function.Name == "" {
		return ToolChoice{}, fmt.Errorf(`tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": …}}`)
	}
	for _, t := range tools {
		if t.Name == named.Function.Name {
			return ToolChoice{Mode: "function", Name: t.Name}, nil
		}
	}
	return ToolChoice{}, fmt.Errorf("tool_choice names function %q, which is not in tools", named.Function.Name)
}

// Select returns the tools a choice allows (the named one, or all).
func (c ToolChoice) Select(tools []Tool) []Tool {
	if c.Mode != "function" {
		return tools
	}
	for _, t := range tools {
		if t.Name == c.Name {
			return []Tool{t}
		}
	}
	return nil
}

// Forced reports a choice that requires a call (required or named).
func (c ToolChoice) Forced() bool { return c.Mode == "required" || c.Mode == "function" }

// ToolCall is one parsed call; Arguments is JSON text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// objectArguments replaces each call's function.arguments JSON string by
// the object it encodes, as llama.cpp does for templates that render
// arguments with tojson (a string would be quoted twice). Strings that are
// not JSON objects stay.
func objectArguments(calls any, orders *keyOrders) {
	list, _ := calls.([]any)
	for _, c := range list {
		call, _ := c.(map[string]any)
		fn, _ := call["function"].(map[string]any)
		if s, ok := fn["arguments"].(string); ok {
			if v, err := orders.decode([]byte(s)); err == nil {
				if _, isObj := v.(map[string]any); isObj {
					fn["arguments"] = v
				}
			}
		}
	}
}

// ToolsJSON is the tools array as llama.cpp hands it to templates: each
// {"type": "function", "function": {"name", "description" (empty when
// absent), "parameters" (an empty object when absent)}}, other keys
// dropped.
func ToolsJSON(tools []Tool) json.RawMessage {
	list := make([]*grammar.Value, len(tools))
	for i, t := range tools {
		list[i] = obj("type", str("function"), "function",
			obj("name", str(t.Name), "description", str(t.Description), "parameters", t.Parameters))
	}
	return json.RawMessage(arr(list...).Dump())
}
