package grammar

import (
	"fmt"
	"slices"
	"strings"
)

// refGrammar is a direct, unoptimised transcription of llama.cpp's grammar
// runtime (stacks as position vectors, recursive candidate rejection, no
// interning, no trie, no memo). Tests compare the Matcher against it.
type refGrammar struct {
	g      *Grammar
	vocab  *testVocab
	stacks [][]int32
	pt     partial
}

func newRef(g *Grammar, v *testVocab) *refGrammar {
	r := &refGrammar{g: g, vocab: v}
	pos := g.start[g.root]
	for {
		var st []int32
		if !g.isEndOfSeq(pos) {
			st = []int32{pos}
		}
		r.stacks = r.advance(st, r.stacks)
		for !g.isEndOfSeq(pos) {
			pos++
		}
		if g.elems[pos].k != kAlt {
			break
		}
		pos++
	}
	return r
}

func stackKey(s []int32) string { return fmt.Sprint(s) }

func containsStack(ss [][]int32, s []int32) bool {
	return slices.ContainsFunc(ss, func(x []int32) bool { return slices.Equal(x, s) })
}

func (r *refGrammar) advance(stack []int32, out [][]int32) [][]int32 {
	g := r.g
	todo := [][]int32{stack}
	seen := map[string]bool{}
	for len(todo) > 0 {
		cur := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[stackKey(cur)] {
			continue
		}
		seen[stackKey(cur)] = true
		if len(cur) == 0 {
			if !containsStack(out, cur) {
				out = append(out, cur)
			}
			continue
		}
		pos := cur[len(cur)-1]
		if g.elems[pos].k != kRuleRef {
			if !containsStack(out, cur) {
				out = append(out, cur)
			}
			continue
		}
		sub := g.start[g.elems[pos].v]
		for {
			next := slices.Clone(cur[:len(cur)-1])
			if !g.isEndOfSeq(pos + 1) {
				next = append(next, pos+1)
			}
			if !g.isEndOfSeq(sub) {
				next = append(next, sub)
			}
			todo = append(todo, next)
			for !g.isEndOfSeq(sub) {
				sub++
			}
			if g.elems[sub].k != kAlt {
				break
			}
			sub++
		}
	}
	return out
}

type refCand struct {
	id   int32
	cps  []uint32
	tail partial
}

// rejects is llama_grammar_reject_candidates_for_stack, over all stacks.
func (r *refGrammar) rejects(stacks [][]int32, cands []refCand) []refCand {
	if len(cands) == 0 {
		return nil
	}
	rej := r.rejectsFor(stacks[0], cands)
	for _, s := range stacks[1:] {
		rej = r.rejectsFor(s, rej)
	}
	return rej
}

func (r *refGrammar) rejectsFor(stack []int32, cands []refCand) []refCand {
	g := r.g
	var rej []refCand
	if len(stack) == 0 {
		for _, c := range cands {
			if len(c.cps) != 0 || c.tail.remain != 0 {
				rej = append(rej, c)
			}
		}
		return rej
	}
	pos := stack[len(stack)-1]
	if isTokenKind(g.elems[pos].k) {
		for _, c := range cands {
			if len(c.cps) == 0 {
				if c.tail.remain != 0 {
					rej = append(rej, c)
				}
			} else if !g.matchToken(pos, c.id) {
				rej = append(rej, c)
			}
		}
		return rej
	}
	var next []refCand
	for _, c := range cands {
		switch {
		case len(c.cps) == 0:
			if c.tail.remain != 0 && !g.matchPartial(pos, c.tail) {
				rej = append(rej, c)
			}
		case g.matchChar(pos, c.cps[0]):
			next = append(next, refCand{c.id, c.cps[1:], c.tail})
		default:
			rej = append(rej, c)
		}
	}
	after := slices.Clone(stack[:len(stack)-1])
	if end := g.classEnd(pos); !g.isEndOfSeq(end) {
		after = append(after, end)
	}
	nextStacks := r.advance(after, nil)
	if len(next) > 0 {
		inner := next
		if len(nextStacks) > 0 {
			inner = r.rejects(nextStacks, next)
		}
		// Rejected candidates go back with the code point consumed here
		// restored (llama.cpp's code_points - 1).
		for _, c := range inner {
			i := slices.IndexFunc(cands, func(x refCand) bool { return x.id == c.id })
			rej = append(rej, cands[i])
		}
	}
	return rej
}

// allowed lists the tokens llama_grammar_apply_impl leaves finite.
func (r *refGrammar) allowed() []int32 {
	allowEOG := containsStack(r.stacks, nil) || slices.ContainsFunc(r.stacks, func(s []int32) bool { return len(s) == 0 })
	var cands []refCand
	var out []int32
	for id := range r.vocab.pieces {
		piece := r.vocab.pieces[id]
		if i := strings.IndexByte(piece, 0); i >= 0 {
			piece = piece[:i]
		}
		if r.vocab.IsEOG(int32(id)) {
			if allowEOG {
				out = append(out, int32(id))
			}
			continue
		}
		if piece == "" {
			continue
		}
		cps, tail := decodePiece(nil, piece, r.pt)
		cands = append(cands, refCand{int32(id), untilZero(cps), tail})
	}
	rejected := map[int32]bool{}
	if len(r.stacks) == 0 {
		return out
	}
	for _, c := range r.rejects(r.stacks, cands) {
		rejected[c.id] = true
	}
	for _, c := range cands {
		if !rejected[c.id] {
			out = append(out, c.id)
		}
	}
	slices.Sort(out)
	return out
}

// accept is llama_grammar_accept_token (EOG handled by the caller).
func (r *refGrammar) accept(tok int32) bool {
	g := r.g
	piece := r.vocab.pieces[tok]
	if i := strings.IndexByte(piece, 0); i >= 0 {
		piece = piece[:i]
	}
	cps, tail := decodePiece(nil, piece, r.pt)
	var out [][]int32
	for _, s := range r.stacks {
		if len(s) == 0 {
			continue
		}
		pos := s[len(s)-1]
		if isTokenKind(g.elems[pos].k) {
			if g.matchToken(pos, tok) {
				ns := slices.Clone(s[:len(s)-1])
				if !g.isEndOfSeq(pos + 1) {
					ns = append(ns, pos+1)
				}
				out = r.advanceInto(ns, out)
			}
			continue
		}
		cur := [][]int32{s}
		for _, c := range cps {
			var next [][]int32
			for _, cs := range cur {
				if len(cs) == 0 || isTokenKind(g.elems[cs[len(cs)-1]].k) {
					continue
				}
				p := cs[len(cs)-1]
				if g.matchChar(p, c) {
					ns := slices.Clone(cs[:len(cs)-1])
					if end := g.classEnd(p); !g.isEndOfSeq(end) {
						ns = append(ns, end)
					}
					next = r.advance(ns, next)
				}
			}
			cur = next
			if len(cur) == 0 {
				break
			}
		}
		for _, cs := range cur {
			if !containsStack(out, cs) {
				out = append(out, cs)
			}
		}
	}
	r.stacks, r.pt = out, tail
	return len(out) > 0
}

func (r *refGrammar) advanceInto(s []int32, out [][]int32) [][]int32 {
	for _, x := range r.advance(s, nil) {
		if !containsStack(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// testVocab is a vocabulary given as pieces; ids listed in eog end
// generation.
type testVocab struct {
	pieces []string
	eog    map[int32]bool
}

func (v *testVocab) NVocab() int                   { return len(v.pieces) }
func (v *testVocab) Piece(id int32, _ bool) string { return v.pieces[id] }
func (v *testVocab) IsEOG(id int32) bool           { return v.eog[id] }
