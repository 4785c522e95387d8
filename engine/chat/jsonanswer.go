package chat

import "strings"

// JSONAnswer extracts the JSON value from an answer constrained by a chat
// response_format grammar, which (as llama.cpp's) allows blanks and a
// ```json … ``` fence around the value. As in llama.cpp the content starts
// at the value and keeps the blanks after it, without the fence. Streamed
// text that may still be the fence is held back until it resolves or
// Flush.
type JSONAnswer struct {
	started bool
	fenced  bool
	pending string
}

const fenceOpen, fenceClose = "```json", "```"

// Add consumes streamed text and returns the part that is certainly
// content.
func (a *JSONAnswer) Add(text string) string {
	s := a.pending + text
	a.pending = ""
	if !a.started {
		t := strings.TrimLeft(s, " \t\r\n")
		if t == "" || len(t) < len(fenceOpen) && strings.HasPrefix(fenceOpen, t) {
			a.pending = s
			return ""
		}
		if strings.HasPrefix(t, fenceOpen) {
			a.fenced = true
			t = strings.TrimLeft(t[len(fenceOpen):], " \t\r\n")
			if t == "" {
				return ""
			}
		}
		a.started = true
		s = t
	}
	if !a.fenced {
		return s
	}
	cut := len(strings.TrimRight(s, "`"))
	a.pending = s[cut:]
	return s[:cut]
}

// Flush returns what was held back, without a closing fence.
func (a *JSONAnswer) Flush() string {
	p := a.pending
	a.pending = ""
	if !a.started {
		return ""
	}
	if a.fenced {
		p = strings.TrimSuffix(p, fenceClose)
	}
	return p
}
