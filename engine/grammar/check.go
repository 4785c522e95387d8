package grammar

import "fmt"

// build checks the parsed rules and flattens them into a Grammar rooted at
// the named rule.
func (p *parser) build(root string) (*Grammar, error) {
	if len(p.rules) == 0 {
		return nil, &SyntaxError{Msg: "the grammar has no rules"}
	}
	for id, r := range p.rules {
		if r == nil {
			return nil, &SyntaxError{Msg: fmt.Sprintf("undefined rule %q", p.names[id])}
		}
	}
	rootID, ok := p.ids[root]
	if !ok {
		return nil, &SyntaxError{Msg: fmt.Sprintf("the grammar has no %q rule", root)}
	}
	g := &Grammar{names: p.names, root: int32(rootID), start: make([]int32, len(p.rules))}
	g.elems = make([]elem, 0, p.nElems)
	for id, r := range p.rules {
		g.start[id] = int32(len(g.elems))
		g.elems = append(g.elems, r...)
	}
	if r := g.leftRecursive(); r >= 0 {
		return nil, &SyntaxError{Msg: fmt.Sprintf("rule %q is left-recursive (it can reach itself before matching any character)", g.names[r])}
	}
	return g, nil
}

// mayBeEmpty marks the rules with a syntactically empty alternative, the
// test llama_grammar_detect_left_recursion uses (a rule whose alternative
// consists of nullable rules is not marked).
func (g *Grammar) mayBeEmpty() []bool {
	out := make([]bool, len(g.start))
	for r, s := range g.start {
		atStart := true
		for i := s; ; i++ {
			if g.isEndOfSeq(i) {
				if atStart {
					out[r] = true
					break
				}
				atStart = true
				if g.elems[i].k == kEnd {
					break
				}
				continue
			}
			atStart = false
		}
	}
	return out
}

// leftEdges lists, for rule r, the rules it may reach before any
// terminal: the leftmost reference of each alternative and those after it
// while the ones before may be empty.
func (g *Grammar) leftEdges(r int, empty []bool, out []int32) []int32 {
	recurse := true
	for i := g.start[r]; ; i++ {
		e := g.elems[i]
		switch {
		case e.k == kRuleRef && recurse:
			out = append(out, int32(e.v))
			recurse = empty[e.v]
		case e.k == kEnd:
			return out
		case e.k == kAlt:
			recurse = true
		default:
			recurse = false
		}
	}
}

// leftRecursive returns a rule on a left-recursive cycle, or -1. It is an
// iterative colour DFS over leftEdges, linear in the grammar's size.
func (g *Grammar) leftRecursive() int {
	empty := g.mayBeEmpty()
	const (
		white = iota
		grey
		black
	)
	colour := make([]uint8, len(g.start))
	type frame struct {
		rule  int32
		edges []int32
	}
	var stack []frame
	for r0 := range g.start {
		if colour[r0] != white {
			continue
		}
		colour[r0] = grey
		stack = append(stack[:0], frame{int32(r0), g.leftEdges(r0, empty, nil)})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.edges) == 0 {
				colour[top.rule] = black
				stack = stack[:len(stack)-1]
				continue
			}
			next := top.edges[0]
			top.edges = top.edges[1:]
			switch colour[next] {
			case grey:
				return int(next)
			case white:
				colour[next] = grey
				stack = append(stack, frame{next, g.leftEdges(int(next), empty, nil)})
			}
		}
	}
	return -1
}
