package grammar

import (
	"strconv"
	"strings"
)

const (
	nonLiteralChars  = "|.()[]{}*+?"
	regexOnlyEscapes = "^$.[]()|{}*+?"
)

// seqItem is a piece of a translated pattern: a literal (quoted when
// joined) or a grammar fragment.
type seqItem struct {
	s       string
	literal bool
}

func (it seqItem) rule() string {
	if it.literal {
		return `"` + it.s + `"`
	}
	return it.s
}

// patternConv is the state of _visit_pattern over one regular expression.
type patternConv struct {
	c      *Converter
	name   string
	p      string
	i      int
	subIDs map[string]string
	nSub   int
	depth  int // open groups
}

// visitPattern translates a JSON-schema pattern, which must be anchored
// with ^ and $, into a rule for a JSON string matching it (the regular
// expression subset of llama.cpp's _visit_pattern: literals and escapes,
// ., [classes], groups and (?:...), |, * + ? and {m,n}). Lookahead and
// lookbehind are errors here; llama.cpp skips them with a warning.
func (c *Converter) visitPattern(pattern, name string) string {
	if len(pattern) < 2 || pattern[0] != '^' || pattern[len(pattern)-1] != '$' {
		c.fail("pattern", "pattern must start with '^' and end with '$', got %q", pattern)
		return ""
	}
	pc := &patternConv{c: c, name: name, p: pattern[1 : len(pattern)-1], subIDs: map[string]string{}}
	body, ok := pc.transform()
	if !ok {
		return ""
	}
	return c.AddRule(name, `"\"" (`+body.rule()+`) "\"" space`)
}

func (pc *patternConv) dot() string {
	rule := `[^\x0A\x0D]`
	if pc.c.DotAll {
		rule = `[\U00000000-\U0010FFFF]`
	}
	return pc.c.AddRule("dot", rule)
}

// join merges consecutive literals and joins the items with spaces.
func join(seq []seqItem) seqItem {
	var parts []string
	lit := ""
	flush := func() {
		if lit != "" {
			parts = append(parts, `"`+lit+`"`)
			lit = ""
		}
	}
	for _, it := range seq {
		if it.literal {
			lit += it.s
			continue
		}
		flush()
		parts = append(parts, it.s)
	}
	flush()
	return seqItem{strings.Join(parts, " "), false}
}

func (pc *patternConv) fail(format string, args ...any) (seqItem, bool) {
	pc.c.fail("pattern", format, args...)
	return seqItem{}, false
}

// transform translates from pc.i up to the ')' closing the current group
// (or the end), as the recursive lambda of _visit_pattern.
func (pc *patternConv) transform() (seqItem, bool) {
	p, n := pc.p, len(pc.p)
	start := pc.i
	var seq []seqItem
	for pc.i < n {
		ch := p[pc.i]
		switch {
		case ch == '.':
			seq = append(seq, seqItem{pc.dot(), false})
			pc.i++
		case ch == '(':
			pc.i++
			if pc.i < n && p[pc.i] == '?' {
				if pc.i+1 < n && p[pc.i+1] == ':' {
					pc.i += 2
				} else {
					return pc.fail("unsupported pattern syntax at %q (lookahead and lookbehind cannot be expressed in a grammar)", p[pc.i-1:])
				}
			}
			if pc.depth++; pc.depth > MaxNesting {
				return pc.fail("groups in the pattern nest deeper than %d", MaxNesting)
			}
			inner, ok := pc.transform()
			pc.depth--
			if !ok {
				return inner, false
			}
			seq = append(seq, seqItem{"(" + inner.rule() + ")", false})
		case ch == ')':
			pc.i++
			if start > 0 && p[start-1] != '(' && (start < 2 || p[start-2] != '?' || p[start-1] != ':') {
				return pc.fail("unbalanced parentheses in pattern")
			}
			return join(seq), true
		case ch == '[':
			sq := "["
			pc.i++
			for pc.i < n && p[pc.i] != ']' {
				if p[pc.i] == '\\' {
					sq += p[pc.i:min(pc.i+2, n)]
					pc.i += 2
				} else {
					sq += string(p[pc.i])
					pc.i++
				}
			}
			if pc.i >= n {
				return pc.fail("unbalanced square brackets in pattern")
			}
			pc.i++
			seq = append(seq, seqItem{sq + "]", false})
		case ch == '|':
			seq = append(seq, seqItem{"|", false})
			pc.i++
		case ch == '*' || ch == '+' || ch == '?':
			if len(seq) == 0 {
				return pc.fail("nothing to repeat before %q in pattern", ch)
			}
			seq[len(seq)-1] = seqItem{seq[len(seq)-1].rule() + string(ch), false}
			pc.i++
		case ch == '{':
			if !pc.curly(seq) {
				return seqItem{}, false
			}
		default:
			lit := pc.literal()
			if lit == "" { // a stray ] or } (llama.cpp loops forever here)
				return pc.fail("unexpected %q in pattern", ch)
			}
			seq = append(seq, seqItem{lit, true})
		}
	}
	return join(seq), true
}

// curly applies {m}, {m,} or {m,n} to the last item.
func (pc *patternConv) curly(seq []seqItem) bool {
	p, n := pc.p, len(pc.p)
	pc.i++
	j := pc.i
	for pc.i < n && p[pc.i] != '}' {
		pc.i++
	}
	if pc.i >= n {
		pc.fail("unbalanced curly brackets in pattern")
		return false
	}
	body := p[j:pc.i]
	pc.i++
	nums := strings.Split(body, ",")
	lo, hi := 0, -1
	var err error
	switch len(nums) {
	case 1:
		lo, err = strconv.Atoi(nums[0])
		hi = lo
	case 2:
		if nums[0] != "" {
			lo, err = strconv.Atoi(nums[0])
		}
		if err == nil && nums[1] != "" {
			hi, err = strconv.Atoi(nums[1])
		}
	default:
		pc.fail("wrong number of values in curly brackets {%s}", body)
		return false
	}
	if err != nil || lo < 0 || lo > MaxRepetition || hi > MaxRepetition {
		pc.fail("invalid repetition {%s} in pattern", body)
		return false
	}
	if len(seq) == 0 {
		pc.fail("nothing to repeat before {%s} in pattern", body)
		return false
	}
	last := &seq[len(seq)-1]
	sub := last.s
	if !last.literal {
		id, ok := pc.subIDs[sub]
		if !ok {
			pc.nSub++
			id = pc.c.AddRule(pc.name+"-"+strconv.Itoa(pc.nSub), sub)
			pc.subIDs[sub] = id
		}
		sub = id
	} else {
		sub = `"` + sub + `"`
	}
	*last = seqItem{buildRepetition(sub, lo, hi, ""), false}
	return true
}

// literal reads a run of literal characters; a character followed by a
// quantifier is read alone so that the quantifier applies to it only.
func (pc *patternConv) literal() string {
	p, n := pc.p, len(pc.p)
	nonLit := func(c byte) bool { return strings.IndexByte(nonLiteralChars, c) >= 0 }
	var lit strings.Builder
	for pc.i < n {
		c := p[pc.i]
		switch {
		case c == '\\' && pc.i < n-1:
			next := p[pc.i+1]
			if strings.IndexByte(regexOnlyEscapes, next) >= 0 {
				lit.WriteByte(next)
			} else {
				lit.WriteString(p[pc.i : pc.i+2])
			}
			pc.i += 2
		case c == '"':
			lit.WriteString(`\"`)
			pc.i++
		case !nonLit(c) && (pc.i == n-1 || lit.Len() == 0 || p[pc.i+1] == '.' || !nonLit(p[pc.i+1])):
			lit.WriteByte(c)
			pc.i++
		default:
			return lit.String()
		}
	}
	return lit.String()
}
