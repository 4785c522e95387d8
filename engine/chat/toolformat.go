package chat

import (
	"strings"

	"github.com/waggle-llm/waggle/engine/grammar"
)

// ToolFormat is the syntax a model family writes tool calls in.
type ToolFormat uint8

// The tool-call families llama.cpp recognises.
const (
	// ToolsGeneric is llama.cpp's fallback for templates that do not
	// render tools: the answer is a JSON object, {"tool_call": {...}},
	// {"tool_calls": [...]} or {"response": ...}.
	ToolsGeneric ToolFormat = iota
	// ToolsHermes is Hermes 2 Pro / Qwen 2.5+ / Qwen3:
	// <tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>.
	ToolsHermes
	// ToolsLlama3 is Llama 3.1+ JSON calls: {"name": …, "parameters": {…}},
	// optionally after <|python_tag|>.
	ToolsLlama3
	// ToolsMistral is Mistral Nemo: [TOOL_CALLS][{"name": …,
	// "arguments": {…}, "id": …}].
	ToolsMistral
)

func (f ToolFormat) String() string {
	return [...]string{"generic", "hermes", "llama3", "mistral"}[f]
}

// Markers of the families.
const (
	hermesOpen  = "<tool_call>"
	hermesClose = "</tool_call>"
	pythonTag   = "<|python_tag|>"
	mistralTag  = "[TOOL_CALLS]"
)

// DetectToolFormat picks the family from the template source, as llama.cpp
// did before its automatic analysis: <tool_call> (Hermes, Qwen),
// [TOOL_CALLS] (Mistral), Llama 3's header tokens with tools, else generic.
func DetectToolFormat(src string) ToolFormat {
	switch {
	case strings.Contains(src, hermesOpen):
		return ToolsHermes
	case strings.Contains(src, mistralTag):
		return ToolsMistral
	case strings.Contains(src, "<|start_header_id|>") && strings.Contains(src, "tools"):
		return ToolsLlama3
	}
	return ToolsGeneric
}

// PreservedTokens are the marker texts a server must render when they are
// special tokens, so the parser sees them (llama.cpp's preserved_tokens).
func (f ToolFormat) PreservedTokens() []string {
	switch f {
	case ToolsHermes:
		return []string{hermesOpen, hermesClose}
	case ToolsLlama3:
		return []string{pythonTag}
	case ToolsMistral:
		return []string{mistralTag}
	}
	return nil
}

// GenericSystemPrompt is what llama.cpp's generic format adds to the
// system message.
const GenericSystemPrompt = "Respond in JSON format, either with `tool_call` (a request to call tools) or with `response` reply to the user's request"

// ToolGrammar is the grammar that constrains tool calls and how it applies.
type ToolGrammar struct {
	Source   string
	Triggers []grammar.Trigger // non-empty: lazy, waits for a trigger
}

// Grammar builds the family's tool-call grammar for the allowed tools.
// Choice auto gives a lazy grammar that waits for the family's marker
// (the generic format constrains the whole answer instead); required and
// a named function constrain from the first token.
func (f ToolFormat) Grammar(tools []Tool, choice ToolChoice, parallel bool) (ToolGrammar, error) {
	tools = resolved(choice.Select(tools))
	c := grammar.NewConverter()
	for _, t := range tools {
		c.ResolveRefs(t.Parameters)
	}
	var tg ToolGrammar
	switch f {
	case ToolsHermes:
		hermesGrammar(c, tools, choice.Forced(), parallel)
		if !choice.Forced() {
			tg.Triggers = []grammar.Trigger{{Word: hermesOpen + "\n"}}
		}
	case ToolsLlama3:
		var alts []string
		for _, t := range tools {
			alts = append(alts, c.AddRule(t.Name+"-call", `"{" space ( "\"type\"" space ":" space "\"function\"" space "," space )? "\"name\"" space ":" space `+
				grammar.FormatLiteral(`"`+t.Name+`"`)+` space "," space "\"parameters\"" space ":" space `+c.Visit(schemaCopy(t.Parameters), t.Name+"-args")+` "}" space`))
		}
		c.AddRule("root", strings.Join(alts, " | "))
		if !choice.Forced() {
			tg.Triggers = []grammar.Trigger{{Pattern: `^\s*(\{\s*(?:"type"\s*:\s*"function"\s*,\s*)?"name"\s*:)`}, {Word: pythonTag}}
		}
	case ToolsMistral:
		items := callSchemas(tools, "arguments", `^[a-zA-Z0-9]{9}$`)
		arr := obj("type", str("array"), "items", anyOf(items), "minItems", num("1"))
		if !parallel {
			arr.Set("maxItems", num("1"))
		}
		c.AddRule("root", `"[TOOL_CALLS]" `+c.Visit(arr, "tool_calls"))
		if !choice.Forced() {
			tg.Triggers = []grammar.Trigger{{Word: mistralTag}}
		}
	default:
		c.Visit(genericSchema(tools, choice, parallel), "")
	}
	src, err := c.Grammar()
	tg.Source = src
	return tg, err
}

// hermesGrammar adds the rules llama.cpp's template analysis generates for
// a Qwen/Hermes template (same names and text, without the generation
// prompt it prefills): calls wrapped in <tool_call>\n … </tool_call>, each
// {"name": …, "arguments": …} in that order, several per block when
// parallel, any number of blocks; forced: from the first token, else from
// the trigger on.
func hermesGrammar(c *grammar.Converter, tools []Tool, forced, parallel bool) {
	var alts []string
	for _, t := range tools {
		schema := c.Visit(t.Parameters, "tool-"+t.Name+"-schema")
		alts = append(alts, c.AddRule("tool-"+t.Name, `"{" space "\"name\"" space ":" space ("\"" `+grammar.FormatLiteral(t.Name)+
			` "\"") space "," space "\"arguments\"" space ":" space `+schema+` space "}"`))
	}
	choice := "(" + strings.Join(alts, " | ") + ")"
	call := `"<tool_call>\n" space ` + choice
	if parallel {
		call += ` (space "," space ` + choice + `)*`
	}
	c.AddRule("tool-call", call+` space "</tool_call>"`)
	if forced {
		c.AddRule("tool-calls", "(tool-call space)+")
		c.AddRule("root", "space tool-calls")
		return
	}
	c.AddRule("tool-calls", "(tool-call? space)+")
	c.AddRule("root", "tool-call | tool-calls")
}

// genericSchema is llama.cpp's generic tool-call schema.
func genericSchema(tools []Tool, choice ToolChoice, parallel bool) *grammar.Value {
	calls := callSchemasWithID(tools, parallel)
	one := calls[0]
	if len(calls) > 1 {
		one = anyOf(calls)
	}
	var call *grammar.Value
	if parallel {
		call = obj("type", str("object"),
			"properties", obj("tool_calls", obj("type", str("array"), "items", one, "minItems", num("1"))),
			"required", arr(str("tool_calls")))
	} else {
		call = obj("type", str("object"), "properties", obj("tool_call", one), "required", arr(str("tool_call")))
	}
	if choice.Forced() {
		return call
	}
	resp := obj("type", str("object"), "properties", obj("response", obj("type", str("string"))), "required", arr(str("response")))
	return obj("anyOf", arr(call, resp))
}

func callSchemasWithID(tools []Tool, parallel bool) []*grammar.Value {
	var out []*grammar.Value
	for _, t := range tools {
		props := obj("name", obj("type", str("string"), "const", str(t.Name)), "arguments", schemaCopy(t.Parameters))
		req := arr(str("name"), str("arguments"))
		s := obj("type", str("object"), "properties", props, "required", req)
		if t.Description != "" {
			s.Set("description", str(t.Description))
		}
		if parallel {
			props.Set("id", obj("type", str("string"), "minLength", num("4")))
			req.Arr = append(req.Arr, str("id"))
		}
		out = append(out, s)
	}
	return out
}

// callSchemas are {"name": const, <argsKey>: parameters, "id": pattern}
// objects (Mistral's call shape).
func callSchemas(tools []Tool, argsKey, idPattern string) []*grammar.Value {
	var out []*grammar.Value
	for _, t := range tools {
		out = append(out, obj("type", str("object"),
			"properties", obj("name", obj("type", str("string"), "const", str(t.Name)),
				argsKey, schemaCopy(t.Parameters),
				"id", obj("type", str("string"), "pattern", str(idPattern))),
			"required", arr(str("name"), str(argsKey), str("id"))))
	}
	return out
}

func schemaCopy(v *grammar.Value) *grammar.Value { return v.Copy() }

// resolved copies the tools with their own parameter schemas, which
// ResolveRefs may rewrite.
func resolved(tools []Tool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		out[i].Parameters = t.Parameters.Copy()
	}
	return out
}

// Small builders for JSON values.
func str(s string) *grammar.Value { return &grammar.Value{Kind: grammar.String, Str: s} }
func num(n string) *grammar.Value { return &grammar.Value{Kind: grammar.Number, Num: n} }
func arr(xs ...*grammar.Value) *grammar.Value {
	return &grammar.Value{Kind: grammar.Array, Arr: xs}
}
func anyOf(xs []*grammar.Value) *grammar.Value { return obj("anyOf", arr(xs...)) }
func obj(kv ...any) *grammar.Value {
	o := &grammar.Value{Kind: grammar.Object}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1].(*grammar.Value))
	}
	return o
}
