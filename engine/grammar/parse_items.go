package grammar

import (
	"math"
	"strconv"
)

// char parses one (possibly escaped) character of a literal or class
// (parse_char): \xHH, \uHHHH, \UHHHHHHHH, \t \r \n \\ \" \[ \], or one
// UTF-8 sequence decoded the way llama.cpp does (no validation).
func (p *parser) char(pos int) (uint32, int) {
	c := p.at(pos)
	if c == '\\' {
		switch p.at(pos + 1) {
		case 'x':
			return p.hex(pos+2, 2)
		case 'u':
			return p.hex(pos+2, 4)
		case 'U':
			return p.hex(pos+2, 8)
		case 't':
			return '\t', pos + 2
		case 'r':
			return '\r', pos + 2
		case 'n':
			return '\n', pos + 2
		case '\\', '"', '[', ']':
			return uint32(p.at(pos + 1)), pos + 2
		default:
			p.fail(pos, "unknown escape at %s", p.quote(pos))
		}
	}
	if pos >= len(p.src) {
		p.fail(pos, "unexpected end of input")
	}
	return decodeOne(p.src, pos)
}

// decodeOne is llama.cpp's lenient single-sequence decoder: the length
// comes from the high nibble of the first byte, continuation bytes are
// taken as they are, and it stops at the end of the input.
func decodeOne(s string, pos int) (uint32, int) {
	lengths := [16]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}
	first := s[pos]
	n := lengths[first>>4]
	v := uint32(first) & (1<<(8-n) - 1)
	end := pos + n
	pos++
	for ; pos < end && pos < len(s); pos++ {
		v = v<<6 + uint32(s[pos]&0x3F)
	}
	return v, pos
}

func (p *parser) hex(pos, size int) (uint32, int) {
	var v uint32
	end := pos
	for end < pos+size {
		c := p.at(end)
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			p.fail(pos, "expecting %d hex digits at %s", size, p.quote(pos))
		}
		v = v<<4 | uint32(d)
		end++
	}
	return v, end
}

// class parses the inside of [...] (pos is just past '[') and returns the
// position after ']'. An empty class adds no element, as in llama.cpp.
func (p *parser) class(pos int, r []elem) (int, []elem) {
	start := kChar
	if p.at(pos) == '^' {
		pos++
		start = kCharNot
	}
	first := len(r)
	for p.at(pos) != ']' {
		if pos >= len(p.src) {
			p.fail(pos, "unterminated character class")
		}
		var ch uint32
		ch, pos = p.char(pos)
		k := start
		if len(r) > first {
			k = kCharAlt
		}
		r = append(r, elem{k, ch})
		if p.at(pos) == '-' && p.at(pos+1) != ']' {
			if pos+1 >= len(p.src) {
				p.fail(pos+1, "unexpected end of input in a character range")
			}
			ch, pos = p.char(pos + 1)
			r = append(r, elem{kCharRngHi, ch})
		}
	}
	return pos + 1, r
}

// token parses <[id]> or <name> (pos at '<').
func (p *parser) token(pos int) (uint32, int) {
	start := pos
	if p.at(pos) != '<' {
		p.fail(pos, "expecting '<' at %s", p.quote(pos))
	}
	pos++
	if p.at(pos) == '[' {
		id, end := p.integer(pos + 1)
		if id > math.MaxInt32 {
			p.fail(pos+1, "token id %d is out of range", id)
		}
		if p.at(end) != ']' {
			p.fail(end, "expecting ']' at %s", p.quote(end))
		}
		if p.at(end+1) != '>' {
			p.fail(end+1, "expecting '>' at %s", p.quote(end+1))
		}
		return uint32(id), end + 2
	}
	if p.tokenize == nil {
		p.fail(start, "token reference %s needs a vocabulary", p.quote(start))
	}
	for pos < len(p.src) && p.src[pos] != '>' {
		pos++
	}
	if p.at(pos) != '>' {
		p.fail(pos, "expecting '>' at %s", p.quote(pos))
	}
	pos++
	text := p.src[start:pos]
	toks := p.tokenize(text)
	if len(toks) != 1 {
		p.fail(start, "token reference %s must be exactly one token, got %d", strconv.Quote(text), len(toks))
	}
	return uint32(toks[0]), pos
}

// group parses (alternates) into a generated rule (pos at '(') and returns
// the position after ')', the rule's id and how many rules it created.
func (p *parser) group(pos int, name string) (int, uint32, uint64) {
	if p.depth++; p.depth > MaxNesting {
		p.fail(pos, "parentheses nest deeper than %d", MaxNesting)
	}
	open := pos
	pos = p.space(pos+1, true)
	before := len(p.names)
	id := p.generated(name)
	pos = p.alternates(pos, name, id, true)
	n := uint64(max(1, len(p.names)-before))
	if p.at(pos) != ')' {
		if pos >= len(p.src) {
			p.fail(open, "unclosed '('")
		}
		p.fail(pos, "expecting ')' at %s", p.quote(pos))
	}
	p.depth--
	return pos + 1, id, n
}

// repetition parses * + ? {m} {m,} {m,n} (pos at the operator).
func (p *parser) repetition(pos int, nested bool) (next int, lo, hi uint64, unbounded bool) {
	switch p.at(pos) {
	case '*':
		return p.space(pos+1, nested), 0, 0, true
	case '+':
		return p.space(pos+1, nested), 1, 0, true
	case '?':
		return p.space(pos+1, nested), 0, 1, false
	}
	open := pos
	pos = p.space(pos+1, nested)
	if !isDigit(p.at(pos)) {
		p.fail(pos, "expecting an integer at %s", p.quote(pos))
	}
	lo, pos = p.integer(pos)
	pos = p.space(pos, nested)
	hi, unbounded = lo, false
	switch p.at(pos) {
	case '}':
		pos = p.space(pos+1, nested)
	case ',':
		pos = p.space(pos+1, nested)
		unbounded = true
		if isDigit(p.at(pos)) {
			hi, pos = p.integer(pos)
			unbounded = false
			pos = p.space(pos, nested)
		}
		if p.at(pos) != '}' {
			p.fail(pos, "expecting '}' at %s", p.quote(pos))
		}
		pos = p.space(pos+1, nested)
	default:
		p.fail(pos, "expecting ',' or '}' at %s", p.quote(pos))
	}
	if lo > MaxRepetition || !unbounded && hi > MaxRepetition {
		p.fail(open, "a repetition count above %d", MaxRepetition)
	}
	if !unbounded && hi < lo {
		p.fail(open, "repetition {%d,%d} has its maximum below its minimum", lo, hi)
	}
	return pos, lo, hi, unbounded
}

// repeat rewrites the item r[last:] repeated lo..hi times (handle_repetitions):
//
//	S{m,n} -> S×m S'(n-m) with S'(x) ::= S S'(x-1) |  and S'(1) ::= S |
//	S{m,}  -> S×m S'      with S'    ::= S S' |
func (p *parser) repeat(pos int, name string, r []elem, last int, nPrev *uint64, lo, hi uint64, unbounded bool) []elem {
	if last == len(r) {
		p.fail(pos, "expecting an item before */+/?/{")
	}
	prev := append([]elem(nil), r[last:]...)
	total := uint64(1)
	if !unbounded && hi > 0 {
		total = hi
	} else if lo > 0 {
		total = lo
	}
	if *nPrev*total >= MaxRepetition {
		p.fail(pos, "the repeated rules times the repetition reach %d; reduce the repetitions or the rule's complexity", MaxRepetition)
	}
	if lo == 0 {
		r = r[:last]
	} else {
		if p.nElems+len(r)+len(prev)*int(lo) > MaxElements {
			p.fail(pos, "grammar expands to more than %d elements", MaxElements)
		}
		for i := uint64(1); i < lo; i++ {
			r = append(r, prev...)
		}
	}
	nOpt := uint64(1)
	if !unbounded {
		nOpt = hi - lo
	}
	var lastRec uint32
	for i := uint64(0); i < nOpt; i++ {
		rec := append(make([]elem, 0, len(prev)+3), prev...)
		id := p.generated(name)
		if i > 0 || unbounded {
			ref := lastRec
			if unbounded {
				ref = id
			}
			rec = append(rec, elem{kRuleRef, ref})
		}
		rec = append(rec, elem{kAlt, 0}, elem{kEnd, 0})
		p.addRule(pos, id, rec)
		lastRec = id
	}
	if nOpt > 0 {
		r = append(r, elem{kRuleRef, lastRec})
	}
	*nPrev *= total
	return r
}
