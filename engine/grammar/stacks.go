package grammar

import (
	"errors"
	"fmt"
	"slices"
)

// Bounds on the state one Matcher may build. A grammar that needs more
// (an ambiguous one whose parses multiply) fails with ErrTooComplex
// instead of growing without limit.
const (
	// MaxStacks bounds the parse stacks alive at one point.
	MaxStacks = 4096
	// maxNodes bounds the interned stack nodes; past it the table is
	// rebuilt from the live stacks.
	maxNodes = 1 << 20
	// maxSets bounds the interned stack sets and their transitions; past
	// it the memo tables are dropped and rebuilt on demand.
	maxSets = 1 << 16
)

// ErrTooComplex reports a grammar whose parse state exceeded MaxStacks.
var ErrTooComplex = errors.New("grammar: too many simultaneous parses (the grammar is too ambiguous)")

// stackTable interns parse stacks. A stack is llama.cpp's vector of element
// positions, top last; here it is an id: 0 is the empty stack, any other id
// is a node (top position, id of the stack below). Equal stacks get equal
// ids, so sets of stacks are sorted id slices and equality is cheap.
//
// step memoizes, per stack whose top is a terminal, the advanced stacks
// after that terminal matched (llama_grammar_advance_stack of the stack
// with its top replaced by the following element).
type stackTable struct {
	g     *Grammar
	top   []int32 // top position of each stack id (unused for id 0)
	below []int32 // id of the stack under the top
	index map[uint64]int32
	step  [][]int32 // memo by stack id; nil = not computed
	done  []bool    // step[id] computed (the result may be empty)
	err   error

	// advance scratch
	todo []int32
	seen map[int32]struct{}
	out  []int32
}

func newStackTable(g *Grammar) *stackTable {
	t := &stackTable{g: g, index: map[uint64]int32{}, seen: map[int32]struct{}{}}
	t.top, t.below = []int32{-1}, []int32{0}
	t.step, t.done = [][]int32{nil}, []bool{false}
	return t
}

// push returns the id of stack s with position pos on top.
func (t *stackTable) push(s, pos int32) int32 {
	key := uint64(uint32(pos))<<32 | uint64(uint32(s))
	if id, ok := t.index[key]; ok {
		return id
	}
	id := int32(len(t.top))
	t.top = append(t.top, pos)
	t.below = append(t.below, s)
	t.step = append(t.step, nil)
	t.done = append(t.done, false)
	t.index[key] = id
	return id
}

// full reports that the table should be rebuilt before it grows further.
func (t *stackTable) full() bool { return len(t.top) > maxNodes }

// positions returns stack s as positions, bottom first.
func (t *stackTable) positions(s int32) []int32 {
	var out []int32
	for ; s != 0; s = t.below[s] {
		out = append(out, t.top[s])
	}
	slices.Reverse(out)
	return out
}

// intern returns the id of the stack with these positions (bottom first).
func (t *stackTable) intern(pos []int32) int32 {
	var s int32
	for _, p := range pos {
		s = t.push(s, p)
	}
	return s
}

// pushUnlessEnd is the "if not end of sequence, push" step llama.cpp takes
// when it pops an element.
func (t *stackTable) pushUnlessEnd(s, pos int32) int32 {
	if t.g.isEndOfSeq(pos) {
		return s
	}
	return t.push(s, pos)
}

// advance expands s into the stacks whose top is a terminal (or the empty
// stack) and appends the new ones to dst as a sorted set
// (llama_grammar_advance_stack). The result is sorted and duplicate-free.
func (t *stackTable) advance(dst []int32, s int32) []int32 {
	g := t.g
	clear(t.seen)
	t.todo = append(t.todo[:0], s)
	t.out = t.out[:0]
	for len(t.todo) > 0 {
		cur := t.todo[len(t.todo)-1]
		t.todo = t.todo[:len(t.todo)-1]
		if _, ok := t.seen[cur]; ok {
			continue
		}
		t.seen[cur] = struct{}{}
		if len(t.seen) > 16*MaxStacks {
			t.fail(ErrTooComplex)
			return dst
		}
		if cur == 0 {
			t.out = append(t.out, 0)
			continue
		}
		pos := t.top[cur]
		e := g.elems[pos]
		if e.k != kRuleRef {
			t.out = append(t.out, cur)
			continue
		}
		base := t.pushUnlessEnd(t.below[cur], pos+1)
		sub := g.start[e.v]
		for {
			t.todo = append(t.todo, t.pushUnlessEnd(base, sub))
			for !g.isEndOfSeq(sub) {
				sub++
			}
			if g.elems[sub].k != kAlt {
				break
			}
			sub++
		}
	}
	return mergeSet(dst, t.out)
}

// stepOf returns the advanced stacks after the terminal on top of s matched
// (the element after the class or token), memoized.
func (t *stackTable) stepOf(s int32) []int32 {
	if t.done[s] {
		return t.step[s]
	}
	pos := t.top[s]
	next := pos + 1
	if k := t.g.elems[pos].k; isCharKind(k) {
		next = t.g.classEnd(pos)
	}
	r := t.advance(nil, t.pushUnlessEnd(t.below[s], next))
	t.step[s], t.done[s] = r, true
	return r
}

func (t *stackTable) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// mergeSet adds the ids of add to the sorted set dst (add need not be
// sorted) and returns it sorted and duplicate-free.
func mergeSet(dst, add []int32) []int32 {
	for _, x := range add {
		i, found := slices.BinarySearch(dst, x)
		if !found {
			dst = slices.Insert(dst, i, x)
		}
	}
	return dst
}

// checkSize fails the table when a set of stacks grew past MaxStacks.
func (t *stackTable) checkSize(set []int32) bool {
	if len(set) > MaxStacks {
		t.fail(fmt.Errorf("%w: %d parses alive, the limit is %d", ErrTooComplex, len(set), MaxStacks))
		return false
	}
	return true
}
