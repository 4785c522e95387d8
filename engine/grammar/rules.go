package grammar

import (
	"fmt"
	"strconv"
	"strings"
)

// kind is the type of one grammar element, numbered as llama.cpp's
// llama_gretype so that dumps compare directly.
type kind uint8

const (
	kEnd       kind = iota // end of a rule
	kAlt                   // start of another alternative of the rule
	kRuleRef               // non-terminal: value is a rule id
	kChar                  // terminal: a code point (or the first of a class)
	kCharNot               // inverse class ([^a], [^a-b])
	kCharRngHi             // makes the preceding char an inclusive range
	kCharAlt               // another char of the same class
	kCharAny               // any code point (.)
	kToken                 // a token id (<[id]>)
	kTokenNot              // any token but this id (!<[id]>)
)

// elem is one element of a rule: a code point, rule id or token id.
type elem struct {
	k kind
	v uint32
}

// Grammar is a parsed, checked GBNF grammar: its rules as flat element
// arrays (each ends with kEnd) and the root rule. It is immutable and may be
// shared by any number of Matchers.
type Grammar struct {
	elems []elem   // all rules back to back
	start []int32  // start[r] is rule r's first element in elems
	names []string // rule names by id (generated ones are name_N)
	root  int32
}

// NumRules returns the number of rules, generated ones included.
func (g *Grammar) NumRules() int { return len(g.start) }

// isEndOfSeq reports whether pos ends an alternative (kEnd or kAlt).
func (g *Grammar) isEndOfSeq(pos int32) bool {
	k := g.elems[pos].k
	return k == kEnd || k == kAlt
}

// isCharKind reports the kinds that start a character class.
func isCharKind(k kind) bool {
	return k == kChar || k == kCharNot || k == kCharAny
}

// String prints the rules in GBNF the way llama_grammar_parser::print does
// (generated rules included, classes printed element by element), one rule
// per line in id order.
func (g *Grammar) String() string {
	var b strings.Builder
	for r := range g.start {
		g.printRule(&b, int32(r))
	}
	return b.String()
}

func (g *Grammar) printRule(b *strings.Builder, r int32) {
	fmt.Fprintf(b, "%s ::= ", g.names[r])
	for i := g.start[r]; g.elems[i].k != kEnd; i++ {
		e := g.elems[i]
		switch e.k {
		case kAlt:
			b.WriteString("| ")
		case kRuleRef:
			b.WriteString(g.names[e.v] + " ")
		case kChar:
			b.WriteString("[")
			printChar(b, e.v)
		case kCharNot:
			b.WriteString("[^")
			printChar(b, e.v)
		case kCharRngHi:
			b.WriteString("-")
			printChar(b, e.v)
		case kCharAlt:
			printChar(b, e.v)
		case kCharAny:
			b.WriteString(".")
		case kToken:
			b.WriteString("<[" + strconv.FormatUint(uint64(e.v), 10) + "]> ")
		case kTokenNot:
			b.WriteString("!<[" + strconv.FormatUint(uint64(e.v), 10) + "]> ")
		}
		if e.k == kChar || e.k == kCharNot || e.k == kCharRngHi || e.k == kCharAlt || e.k == kCharAny {
			switch g.elems[i+1].k {
			case kCharAlt, kCharRngHi, kCharAny:
			default:
				b.WriteString("] ")
			}
		}
	}
	b.WriteString("\n")
}

func printChar(b *strings.Builder, c uint32) {
	if 0x20 <= c && c <= 0x7f {
		b.WriteByte(byte(c))
		return
	}
	fmt.Fprintf(b, "<U+%04X>", c)
}
