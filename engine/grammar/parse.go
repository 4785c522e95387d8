package grammar

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits on what one grammar may cost. llama.cpp enforces the first two;
// the others bound memory and recursion for hostile input.
const (
	// MaxRepetition bounds m and n in S{m,n}, and the number of rules one
	// repetition may multiply into (llama.cpp's MAX_REPETITION_THRESHOLD).
	MaxRepetition = 2000
	// MaxSourceBytes bounds the grammar text.
	MaxSourceBytes = 1 << 20
	// MaxElements bounds the elements of all rules together.
	MaxElements = 1 << 22
	// MaxNesting bounds how deep parentheses may nest.
	MaxNesting = 256
)

// TokenizeFunc turns the text of a token reference such as <think> into
// token ids (with special tokens parsed); it must yield exactly one id.
type TokenizeFunc func(text string) []int32

// SyntaxError is a grammar that does not parse or does not check out: the
// message and, where the error has one, the 1-based line and column.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("grammar: line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return "grammar: " + e.Msg
}

// Parse parses GBNF text with llama.cpp's syntax and semantics (rules
// "name ::= alternatives", literals, [classes], [^inverse], ., groups,
// * + ? {m} {m,} {m,n}, # comments, token references <[id]>, !<[id]>,
// <name> and !<name>) and checks it: every referenced rule is defined, a
// rule named "root" exists, no rule is left-recursive. tokenize resolves
// <name> references; nil makes them an error.
func Parse(src string, tokenize TokenizeFunc) (*Grammar, error) {
	if len(src) > MaxSourceBytes {
		return nil, &SyntaxError{Msg: fmt.Sprintf("grammar is %d bytes; the limit is %d", len(src), MaxSourceBytes)}
	}
	if i := strings.IndexByte(src, 0); i >= 0 {
		p := &parser{src: src}
		return nil, p.errAt(i, "NUL byte in grammar")
	}
	p := &parser{src: src, tokenize: tokenize, ids: map[string]uint32{}}
	if err := p.parseAll(); err != nil {
		return nil, err
	}
	return p.build("root")
}

// parser is llama_grammar_parser over a Go string; at(i) is 0 past the end,
// as the C string's terminator is.
type parser struct {
	src      string
	tokenize TokenizeFunc
	ids      map[string]uint32
	names    []string // by id
	rules    [][]elem // by id; nil = referenced but not defined (yet)
	nElems   int      // elements in all rules so far
	depth    int      // open parentheses
}

// parseError carries a SyntaxError through panic from deep in the parser
// to parseAll; nothing else is recovered.
type parseError struct{ err *SyntaxError }

func (p *parser) at(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

func (p *parser) errAt(i int, format string, args ...any) *SyntaxError {
	line, col := 1, 1
	for _, c := range []byte(p.src[:min(i, len(p.src))]) {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// fail aborts the parse; parseAll recovers it into an error.
func (p *parser) fail(i int, format string, args ...any) {
	panic(parseError{p.errAt(i, format, args...)})
}

func (p *parser) parseAll() (err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			err = pe.err
		}
	}()
	pos := p.space(0, true)
	for pos < len(p.src) {
		pos = p.rule(pos)
	}
	return nil
}

func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || '0' <= c && c <= '9'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// space skips blanks and # comments, and newlines when newlineOK.
func (p *parser) space(pos int, newlineOK bool) int {
	for {
		c := p.at(pos)
		switch {
		case c == ' ' || c == '\t':
			pos++
		case c == '#':
			for pos < len(p.src) && p.src[pos] != '\r' && p.src[pos] != '\n' {
				pos++
			}
		case newlineOK && (c == '\r' || c == '\n'):
			pos++
		default:
			return pos
		}
	}
}

func (p *parser) name(pos int) int {
	end := pos
	for isWordChar(p.at(end)) {
		end++
	}
	if end == pos {
		p.fail(pos, "expecting a name at %s", p.quote(pos))
	}
	return end
}

func (p *parser) integer(pos int) (uint64, int) {
	end := pos
	for isDigit(p.at(end)) {
		end++
	}
	if end == pos {
		p.fail(pos, "expecting an integer at %s", p.quote(pos))
	}
	v, err := strconv.ParseUint(p.src[pos:end], 10, 64)
	if err != nil {
		p.fail(pos, "integer %s is out of range", p.src[pos:end])
	}
	return v, end
}

// quote shows the input from pos on, shortened, for error messages.
func (p *parser) quote(pos int) string {
	if pos >= len(p.src) {
		return "end of input"
	}
	rest := p.src[pos:]
	if i := strings.IndexAny(rest, "\r\n"); i >= 0 {
		rest = rest[:i]
	}
	if len(rest) > 32 {
		rest = rest[:32] + "…"
	}
	return strconv.Quote(rest)
}

func (p *parser) symbol(name string) uint32 {
	if id, ok := p.ids[name]; ok {
		return id
	}
	id := uint32(len(p.names))
	p.ids[name] = id
	p.names = append(p.names, name)
	p.rules = append(p.rules, nil)
	return id
}

// generated is generate_symbol_id: base_N with N the new id.
func (p *parser) generated(base string) uint32 {
	id := uint32(len(p.names))
	name := base + "_" + strconv.FormatUint(uint64(id), 10)
	p.ids[name] = id
	p.names = append(p.names, name)
	p.rules = append(p.rules, nil)
	return id
}

func (p *parser) addRule(pos int, id uint32, r []elem) {
	p.nElems += len(r)
	if p.nElems > MaxElements {
		p.fail(pos, "grammar expands to more than %d elements", MaxElements)
	}
	p.rules[id] = r
}

func (p *parser) rule(pos int) int {
	nameEnd := p.name(pos)
	name := p.src[pos:nameEnd]
	id := p.symbol(name)
	q := p.space(nameEnd, false)
	if !strings.HasPrefix(p.src[q:], "::=") {
		p.fail(q, "expecting ::= at %s", p.quote(q))
	}
	q = p.space(q+3, true)
	q = p.alternates(q, name, id, false)
	switch p.at(q) {
	case '\r':
		q++
		if p.at(q) == '\n' {
			q++
		}
	case '\n':
		q++
	case 0:
	default:
		p.fail(q, "expecting newline or end at %s", p.quote(q))
	}
	return p.space(q, true)
}

func (p *parser) alternates(pos int, name string, id uint32, nested bool) int {
	var r []elem
	pos, r = p.sequence(pos, name, r, nested)
	for p.at(pos) == '|' {
		r = append(r, elem{kAlt, 0})
		pos = p.space(pos+1, true)
		pos, r = p.sequence(pos, name, r, nested)
	}
	r = append(r, elem{kEnd, 0})
	p.addRule(pos, id, r)
	return pos
}

// sequence parses one alternative into r (parse_sequence).
func (p *parser) sequence(pos int, name string, r []elem, nested bool) (int, []elem) {
	lastStart := len(r)
	nPrev := uint64(1)
	for pos < len(p.src) {
		c := p.at(pos)
		switch {
		case c == '"':
			pos++
			lastStart, nPrev = len(r), 1
			for p.at(pos) != '"' {
				if pos >= len(p.src) {
					p.fail(pos, "unterminated string literal")
				}
				var ch uint32
				ch, pos = p.char(pos)
				r = append(r, elem{kChar, ch})
			}
			pos = p.space(pos+1, nested)
		case c == '[':
			lastStart, nPrev = len(r), 1
			pos, r = p.class(pos+1, r)
			pos = p.space(pos, nested)
		case c == '<' || c == '!':
			k := kToken
			if c == '!' {
				k = kTokenNot
				pos++
			}
			var id uint32
			id, pos = p.token(pos)
			lastStart, nPrev = len(r), 1
			r = append(r, elem{k, id})
			pos = p.space(pos, nested)
		case isWordChar(c):
			end := p.name(pos)
			ref := p.symbol(p.src[pos:end])
			pos = p.space(end, nested)
			lastStart, nPrev = len(r), 1
			r = append(r, elem{kRuleRef, ref})
		case c == '(':
			var id uint32
			pos, id, nPrev = p.group(pos, name)
			lastStart = len(r)
			r = append(r, elem{kRuleRef, id})
			pos = p.space(pos, nested)
		case c == '.':
			lastStart, nPrev = len(r), 1
			r = append(r, elem{kCharAny, 0})
			pos = p.space(pos+1, nested)
		case c == '*' || c == '+' || c == '?' || c == '{':
			var lo, hi uint64
			var unbounded bool
			pos, lo, hi, unbounded = p.repetition(pos, nested)
			r = p.repeat(pos, name, r, lastStart, &nPrev, lo, hi, unbounded)
		default:
			return pos, r
		}
	}
	return pos, r
}
