package chat

import (
	"fmt"
	"strings"
)

// Think tags delimiting a reasoning model's thoughts (DeepSeek-R1, Qwen3, …).
const (
	ThinkOpen  = "<think>"
	ThinkClose = "</think>"
)

// ParseReasoningFormat checks a reasoning_format value: "none" keeps
// thoughts in the content; "deepseek" and "auto" (llama.cpp's default, which
// behaves as deepseek) move them to reasoning_content. An empty string is
// "auto".
func ParseReasoningFormat(s string) (string, error) {
	switch s {
	case "", "auto":
		return "auto", nil
	case "none", "deepseek":
		return s, nil
	}
	return "", fmt.Errorf("reasoning_format must be none, deepseek or auto, got %q", s)
}

// Reasoning splits streamed model text into content and reasoning. It holds
// back text that may be the start of a tag, so each Add returns only text
// whose channel is certain; Flush releases the rest. The concatenation of
// all content and reasoning pieces equals the input minus the tags and the
// whitespace right after them.
type Reasoning struct {
	extract  bool   // false: format "none", everything is content
	state    int    // stStart, stThink, stAfter
	pending  string // held back: possible tag prefix or leading space
	trimLead bool   // drop whitespace before the next output of this channel
}

const (
	stStart = iota // nothing but whitespace seen; a <think> may open
	stThink        // inside <think>…
	stAfter        // content
)

// NewReasoning returns a parser for format (see ParseReasoningFormat).
// inThink says the prompt already opened a <think> block (templates that
// end their generation prompt with "<think>\n").
func NewReasoning(format string, inThink bool) *Reasoning {
	r := &Reasoning{extract: format != "none"}
	if inThink && r.extract {
		r.state, r.trimLead = stThink, true
	}
	return r
}

// InThink reports that the parser is inside a thought (for budgets).
func (r *Reasoning) InThink() bool { return r.state == stThink }

// Add consumes text and returns what is certain so far.
func (r *Reasoning) Add(text string) (content, reasoning string) {
	if !r.extract {
		return text, ""
	}
	var c, t strings.Builder
	s := r.pending + text
	r.pending = ""
	for s != "" {
		s = r.step(s, &c, &t)
	}
	return c.String(), t.String()
}

// step consumes a prefix of s according to the state and returns the rest.
func (r *Reasoning) step(s string, c, t *strings.Builder) string {
	switch r.state {
	case stStart:
		trimmed := strings.TrimLeft(s, " \t\r\n")
		if trimmed == "" {
			r.pending = s
			return ""
		}
		if strings.HasPrefix(trimmed, ThinkOpen) {
			r.state, r.trimLead = stThink, true
			return trimmed[len(ThinkOpen):]
		}
		if strings.HasPrefix(ThinkOpen, trimmed) {
			r.pending = s
			return ""
		}
		r.state = stAfter
		return s
	case stThink:
		return r.emitUntil(s, ThinkClose, t, stAfter)
	}
	return r.emitUntil(s, "", c, stAfter)
}

// emitUntil writes s to out up to tag (when tag is non-empty), switching to
// next after the tag and holding back a possible partial tag at the end.
func (r *Reasoning) emitUntil(s, tag string, out *strings.Builder, next int) string {
	if r.trimLead {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return ""
		}
		r.trimLead = false
	}
	if tag != "" {
		if i := strings.Index(s, tag); i >= 0 {
			out.WriteString(strings.TrimRight(s[:i], " \t\r\n"))
			r.state, r.trimLead = next, true
			return s[i+len(tag):]
		}
		keep := partialSuffix(s, tag)
		// Hold trailing whitespace too: it is trimmed if the tag follows.
		body := s[:len(s)-keep]
		ws := len(body) - len(strings.TrimRight(body, " \t\r\n"))
		out.WriteString(body[:len(body)-ws])
		r.pending = s[len(body)-ws:]
		return ""
	}
	out.WriteString(s)
	return ""
}

// Flush returns whatever was held back, in its channel.
func (r *Reasoning) Flush() (content, reasoning string) {
	p := r.pending
	r.pending = ""
	switch {
	case !r.extract:
		return p, ""
	case r.state == stThink:
		return "", strings.TrimRight(p, " \t\r\n")
	case r.trimLead:
		return strings.TrimLeft(p, " \t\r\n"), ""
	}
	return p, ""
}

// SplitReasoning parses a whole response.
func SplitReasoning(text, format string, inThink bool) (content, reasoning string) {
	r := NewReasoning(format, inThink)
	c1, t1 := r.Add(text)
	c2, t2 := r.Add("")
	c3, t3 := r.Flush()
	return c1 + c2 + c3, t1 + t2 + t3
}

// partialSuffix returns the length of the longest suffix of s that is a
// proper prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}

// PartialSuffix is partialSuffix for any of several strings (stop words):
// the longest suffix of s that is a proper prefix of one of them.
func PartialSuffix(s string, tags []string) int {
	best := 0
	for _, t := range tags {
		best = max(best, partialSuffix(s, t))
	}
	return best
}
