package chat

import (
	"strings"

	"github.com/waggle-llm/waggle/engine/grammar"
)

// ToolParser splits the answer of a model offered tools into text and
// tool calls as it streams. Add returns the text that is certainly
// content and the calls completed so far; text that may still turn into a
// call (a partial marker, an unfinished call) is held back until it
// resolves or Flush. A call that does not parse is returned as content.
type ToolParser struct {
	f       ToolFormat
	names   map[string]bool
	newID   func() string
	buf     string
	inCall  bool // Hermes/Mistral: inside a call after the marker
	decided bool // Llama 3/generic: the first non-blank text was seen
	hold    bool // Llama 3/generic: the answer is JSON, parsed at Flush
	nCalls  int
}

// NewToolParser returns a parser for format f over the offered tools;
// newID makes call ids where the format has none.
func NewToolParser(f ToolFormat, tools []Tool, newID func() string) *ToolParser {
	names := map[string]bool{}
	for _, t := range tools {
		names[t.Name] = true
	}
	return &ToolParser{f: f, names: names, newID: newID}
}

// Calls reports how many calls were returned so far.
func (p *ToolParser) Calls() int { return p.nCalls }

// Add consumes streamed text.
func (p *ToolParser) Add(text string) (string, []ToolCall) {
	p.buf += text
	switch p.f {
	case ToolsHermes:
		return p.addTagged(hermesOpen, hermesClose)
	case ToolsMistral:
		return p.addTagged(mistralTag, "")
	}
	return p.addJSON()
}

// addTagged streams content until the open marker and parses each call up
// to the close marker (or, without one, to the end of the output). As in
// llama.cpp's parser the blanks that start the answer and those between
// calls are not content; text before a call is, verbatim.
func (p *ToolParser) addTagged(open, close string) (string, []ToolCall) {
	var content strings.Builder
	var calls []ToolCall
	if !p.decided {
		t := strings.TrimLeft(p.buf, " \t\r\n")
		if t == "" {
			p.buf = ""
			return "", nil
		}
		p.buf, p.decided = t, true
	}
	for {
		if p.inCall {
			if close == "" {
				return p.visible(content.String()), calls
			}
			j := strings.Index(p.buf, close)
			if j < 0 {
				return p.visible(content.String()), calls
			}
			body := p.buf[:j]
			p.buf = strings.TrimLeft(p.buf[j+len(close):], " \t\r\n")
			p.inCall = false
			if c, ok := p.parseCall(body); ok {
				calls = append(calls, c...)
			} else {
				content.WriteString(open + body + close)
			}
			continue
		}
		i := strings.Index(p.buf, open)
		if i < 0 {
			keep := partialSuffix(p.buf, open)
			content.WriteString(p.buf[:len(p.buf)-keep])
			p.buf = p.buf[len(p.buf)-keep:]
			return p.visible(content.String()), calls
		}
		content.WriteString(p.buf[:i])
		p.buf = p.buf[i+len(open):]
		p.inCall = true
	}
}

// visible drops content that is only blank between or after calls.
func (p *ToolParser) visible(s string) string {
	if p.nCalls > 0 && strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// addJSON decides on the first non-blank text whether the answer is a
// JSON call (held to Flush) or text (streamed).
func (p *ToolParser) addJSON() (string, []ToolCall) {
	if !p.decided {
		t := strings.TrimLeft(p.buf, " \t\r\n")
		switch {
		case t == "":
			return "", nil
		case p.f == ToolsLlama3 && strings.HasPrefix(pythonTag, t) && len(t) < len(pythonTag):
			return "", nil // maybe the start of <|python_tag|>
		}
		p.decided = true
		p.hold = p.f == ToolsGeneric || strings.HasPrefix(t, "{") || strings.HasPrefix(t, pythonTag)
	}
	if p.hold {
		return "", nil
	}
	s := p.buf
	p.buf = ""
	return s, nil
}

// Flush parses what was held back.
func (p *ToolParser) Flush() (string, []ToolCall) {
	rest := p.buf
	p.buf = ""
	switch {
	case p.inCall:
		p.inCall = false
		if calls, ok := p.parseCall(rest); ok {
			return "", calls
		}
		if calls := p.lenientCalls(rest); len(calls) > 0 {
			return "", calls
		}
		return "", nil // a call cut off before its name and arguments
	case p.hold:
		if calls, ok := p.parseCall(strings.TrimPrefix(strings.TrimSpace(rest), pythonTag)); ok {
			return "", calls
		}
		if p.f == ToolsGeneric {
			if s, ok := genericResponse(rest); ok {
				return s, nil
			}
		}
	}
	if p.nCalls > 0 {
		rest = strings.TrimSpace(rest)
		if (p.f == ToolsHermes || p.f == ToolsMistral) && partialSuffix(rest, p.marker()) == len(rest) {
			rest = "" // the start of another call, cut off
		}
	}
	return rest, nil
}

func (p *ToolParser) marker() string {
	if p.f == ToolsMistral {
		return mistralTag
	}
	return hermesOpen
}

// lenientCalls reads the calls of a block cut off at the end of the output
// as llama.cpp's lenient final parse does: each call whose name and
// arguments are complete counts, even when its object or the block is not
// closed.
func (p *ToolParser) lenientCalls(body string) []ToolCall {
	if p.f != ToolsHermes {
		return nil
	}
	var calls []ToolCall
	i := 0
	for {
		m, end := members(body, i)
		c, ok := p.callFrom(m["name"], m["arguments"], m["id"])
		if !ok {
			break
		}
		calls = append(calls, c)
		if end < 0 {
			break
		}
		i = skipBlank(body, end)
		if i >= len(body) || body[i] != ',' {
			break
		}
		i++
	}
	p.nCalls += len(calls)
	return calls
}

// callFrom makes a call from raw member texts (name and id JSON strings).
func (p *ToolParser) callFrom(nameRaw, argsRaw, idRaw string) (ToolCall, bool) {
	name, err := grammar.ParseJSON([]byte(nameRaw))
	if err != nil || name.Kind != grammar.String || !p.names[name.Str] || argsRaw == "" {
		return ToolCall{}, false
	}
	if _, err := grammar.ParseJSON([]byte(argsRaw)); err != nil {
		return ToolCall{}, false
	}
	c := ToolCall{Name: name.Str, Arguments: argsRaw}
	if id, err := grammar.ParseJSON([]byte(idRaw)); err == nil && id.Kind == grammar.String && id.Str != "" {
		c.ID = id.Str
	} else if p.newID != nil {
		c.ID = p.newID()
	}
	return c, true
}

// parseCall reads the body of one call block in the family's JSON shape;
// a Hermes block may hold several objects separated by commas (parallel
// calls). Arguments keep their source text, as llama.cpp returns them.
func (p *ToolParser) parseCall(body string) ([]ToolCall, bool) {
	body = strings.TrimSpace(body)
	var objs []string
	argsKey := "arguments"
	switch p.f {
	case ToolsMistral:
		if !strings.HasPrefix(body, "[") || !strings.HasSuffix(body, "]") {
			return nil, false
		}
		list, ok := splitValues(body[1 : len(body)-1])
		if !ok {
			return nil, false
		}
		objs = list
	case ToolsLlama3:
		objs, argsKey = []string{body}, "parameters"
	case ToolsGeneric:
		if tc := memberSpan(body, "tool_call"); tc != "" {
			objs = []string{tc}
		} else if tcs := memberSpan(body, "tool_calls"); strings.HasPrefix(tcs, "[") {
			list, ok := splitValues(tcs[1 : len(tcs)-1])
			if !ok {
				return nil, false
			}
			objs = list
		} else {
			return nil, false
		}
	default:
		list, ok := splitValues(body)
		if !ok {
			return nil, false
		}
		objs = list
	}
	var calls []ToolCall
	for _, o := range objs {
		c, ok := p.callOf(o, argsKey)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	p.nCalls += len(calls)
	return calls, len(calls) > 0
}

// splitValues splits comma-separated JSON values, each of which must parse.
func splitValues(s string) ([]string, bool) {
	var out []string
	i := skipBlank(s, 0)
	for i < len(s) {
		end, ok := valueEnd(s, i)
		if !ok {
			return nil, false
		}
		if _, err := grammar.ParseJSON([]byte(s[i:end])); err != nil {
			return nil, false
		}
		out = append(out, s[i:end])
		i = skipBlank(s, end)
		if i < len(s) {
			if s[i] != ',' {
				return nil, false
			}
			i = skipBlank(s, i+1)
		}
	}
	return out, len(out) > 0
}

func (p *ToolParser) callOf(text, argsKey string) (ToolCall, bool) {
	o, err := grammar.ParseJSON([]byte(text))
	if err != nil || o.Kind != grammar.Object {
		return ToolCall{}, false
	}
	name := o.Get("name")
	if name == nil || name.Kind != grammar.String || !p.names[name.Str] {
		return ToolCall{}, false
	}
	raw := memberSpan(text, argsKey)
	if raw == "" && argsKey == "parameters" {
		argsKey = "arguments"
		raw = memberSpan(text, argsKey)
	}
	c := ToolCall{Name: name.Str, Arguments: "{}"}
	if args := o.Get(argsKey); args != nil && raw != "" {
		c.Arguments = raw
		if args.Kind == grammar.String {
			c.Arguments = args.Str
		}
	}
	if id := o.Get("id"); id != nil && id.Kind == grammar.String && id.Str != "" {
		c.ID = id.Str
	} else if p.newID != nil {
		c.ID = p.newID()
	}
	return c, true
}

// genericResponse reads {"response": …} of the generic format.
func genericResponse(s string) (string, bool) {
	v, err := grammar.ParseJSON([]byte(strings.TrimSpace(s)))
	if err != nil {
		return "", false
	}
	r := v.Get("response")
	if r == nil {
		return "", false
	}
	if r.Kind == grammar.String {
		return r.Str, true
	}
	return r.Dump(), true
}
