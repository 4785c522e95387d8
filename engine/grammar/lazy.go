package grammar

import (
	"fmt"
	"regexp"
	"strings"
)

// Trigger wakes a lazy grammar: a literal Word anywhere in the output, a
// regular expression Pattern found anywhere (RE2 syntax; the grammar
// starts at its first non-empty capture group, else at the match), or a
// Token id. llama.cpp's "full pattern" triggers are patterns anchored with
// ^ and $.
type Trigger struct {
	Word    string
	Pattern string
	Token   int32
	IsToken bool
}

// lazyState buffers the output of a lazy grammar until a trigger appears
// (llama_grammar's awaiting_trigger, trigger_buffer and its positions).
type lazyState struct {
	buf      string
	spans    []tokenSpan
	tokens   []int32
	words    []string
	patterns []*regexp.Regexp
}

type tokenSpan struct {
	tok        int32
	start, end int
}

func (l *lazyState) clone() *lazyState {
	c := *l
	c.spans = append([]tokenSpan(nil), l.spans...)
	return &c
}

// NewLazyMatcher returns a Matcher that allows every token until one of
// triggers appears in the output, then constrains the rest of it starting
// from the trigger (llama_sampler_init_grammar_lazy_patterns).
func NewLazyMatcher(g *Grammar, ix *Index, triggers []Trigger) (*Matcher, error) {
	if len(triggers) == 0 {
		return nil, fmt.Errorf("grammar: a lazy grammar needs at least one trigger")
	}
	l := &lazyState{}
	for _, t := range triggers {
		switch {
		case t.IsToken:
			l.tokens = append(l.tokens, t.Token)
		case t.Pattern != "":
			re, err := regexp.Compile(t.Pattern)
			if err != nil {
				return nil, fmt.Errorf("grammar: trigger pattern %q: %v", t.Pattern, err)
			}
			l.patterns = append(l.patterns, re)
		case t.Word != "":
			l.words = append(l.words, t.Word)
		default:
			return nil, fmt.Errorf("grammar: empty trigger")
		}
	}
	m := NewMatcher(g, ix)
	m.lazy = l
	return m, nil
}

// acceptWaiting is the awaiting-trigger branch of llama_grammar_accept_impl.
func (m *Matcher) acceptWaiting(tok int32) {
	l := m.lazy
	piece := m.ix.pieces[tok]
	for _, t := range l.tokens {
		if t == tok {
			m.lazy = nil
			m.acceptPiece(tok, piece)
			return
		}
	}
	from := len(l.buf)
	l.spans = append(l.spans, tokenSpan{tok, from, from + len(piece)})
	l.buf += piece
	start := l.find(from)
	if start < 0 {
		return
	}
	m.lazy = nil
	for _, sp := range l.spans {
		if sp.end <= start {
			continue
		}
		m.acceptPiece(sp.tok, l.buf[max(sp.start, start):sp.end])
		if m.err != nil {
			return
		}
	}
}

// find returns where the constrained text starts, or -1. A word can only
// newly occur across the text appended at from, so only that tail is
// searched for words; patterns search the whole buffer, as llama.cpp does.
func (l *lazyState) find(from int) int {
	for _, w := range l.words {
		lo := max(0, from-len(w)+1)
		if i := strings.Index(l.buf[lo:], w); i >= 0 {
			return lo + i
		}
	}
	for _, re := range l.patterns {
		loc := re.FindStringSubmatchIndex(l.buf)
		if loc == nil {
			continue
		}
		for g := 2; g+1 < len(loc); g += 2 {
			if loc[g] >= 0 && loc[g+1] > loc[g] {
				return loc[g]
			}
		}
		return loc[0]
	}
	return -1
}
