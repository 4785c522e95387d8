package grammar

import "encoding/binary"

// space is the memo state a Matcher and its clones share: the interned
// stacks, interned sets of stacks with their transitions on a code point
// (a DFA over parse states built lazily), and the accepted-token bitsets of
// recent states. It is not safe for concurrent use.
type space struct {
	t      *stackTable
	sets   [][]int32 // set id -> sorted stack ids; id 0 is the empty set
	info   []setInfo
	index  map[string]int32
	trans  map[uint64]int32
	key    []byte
	cache  bitsetCache
	merged []int32 // transition scratch
}

// setInfo is what the trie walk needs of a set without scanning it.
type setInfo struct {
	hasEmpty  bool
	hasChar   bool
	tokenTops []int32     // positions of token elements on top
	ascii     *[128]int32 // transitions on ASCII code points, -1 = not yet known
}

func newSpace(g *Grammar) *space {
	sp := &space{t: newStackTable(g), index: map[string]int32{}, trans: map[uint64]int32{}}
	sp.sets = [][]int32{nil}
	sp.info = []setInfo{{}}
	sp.index[""] = 0
	return sp
}

// full reports that the memo tables should be rebuilt before they grow.
func (sp *space) full() bool { return sp.t.full() || len(sp.sets) > maxSets }

// set returns the id of the sorted stack set s (s is copied when new).
func (sp *space) set(s []int32) int32 {
	sp.key = sp.key[:0]
	for _, x := range s {
		sp.key = binary.LittleEndian.AppendUint32(sp.key, uint32(x))
	}
	if id, ok := sp.index[string(sp.key)]; ok {
		return id
	}
	id := int32(len(sp.sets))
	own := append([]int32(nil), s...)
	sp.sets = append(sp.sets, own)
	sp.index[string(sp.key)] = id
	sp.info = append(sp.info, sp.describe(own))
	return id
}

func (sp *space) describe(s []int32) setInfo {
	var in setInfo
	g := sp.t.g
	for _, x := range s {
		if x == 0 {
			in.hasEmpty = true
			continue
		}
		pos := sp.t.top[x]
		if isTokenKind(g.elems[pos].k) {
			in.tokenTops = append(in.tokenTops, pos)
		} else {
			in.hasChar = true
		}
	}
	return in
}

// next returns the set after code point c: the union of the advanced
// stacks of every stack in set id whose top class matches c (stacks that
// are empty or wait for a token drop out), as llama_grammar_accept_chr.
func (sp *space) next(id int32, c uint32) int32 {
	in := &sp.info[id]
	if !in.hasChar {
		return 0
	}
	if c < 128 && in.ascii != nil && in.ascii[c] >= 0 {
		return in.ascii[c]
	}
	key := uint64(uint32(id))<<32 | uint64(c)
	if c >= 128 {
		if r, ok := sp.trans[key]; ok {
			return r
		}
	}
	r := sp.computeNext(id, c)
	in = &sp.info[id] // computeNext may have grown sp.info
	if c < 128 {
		if in.ascii == nil {
			in.ascii = new([128]int32)
			for i := range in.ascii {
				in.ascii[i] = -1
			}
		}
		in.ascii[c] = r
	} else {
		sp.trans[key] = r
	}
	return r
}

func (sp *space) computeNext(id int32, c uint32) int32 {
	g, t := sp.t.g, sp.t
	sp.merged = sp.merged[:0]
	for _, x := range sp.sets[id] {
		if x == 0 {
			continue
		}
		pos := t.top[x]
		if isTokenKind(g.elems[pos].k) || !g.matchChar(pos, c) {
			continue
		}
		sp.merged = mergeSet(sp.merged, t.stepOf(x))
	}
	if !t.checkSize(sp.merged) {
		sp.merged = sp.merged[:0]
	}
	return sp.set(sp.merged)
}

// endOK reports whether a token whose code points all matched, leaving set
// id, is accepted given its trailing partial sequence tail.
func (sp *space) endOK(id int32, tail partial) bool {
	s := sp.sets[id]
	if len(s) == 0 {
		return false
	}
	if tail.remain == 0 {
		return true
	}
	g, t := sp.t.g, sp.t
	for _, x := range s {
		if x == 0 {
			continue
		}
		pos := t.top[x]
		if !isTokenKind(g.elems[pos].k) && g.matchPartial(pos, tail) {
			return true
		}
	}
	return false
}

// tokenMatch reports whether a stack of set id waiting for a token accepts
// token tok (llama.cpp decides such a stack by the id alone while code
// points of the candidate remain).
func (sp *space) tokenMatch(id int32, tok int32) bool {
	g := sp.t.g
	for _, pos := range sp.info[id].tokenTops {
		if g.matchToken(pos, tok) {
			return true
		}
	}
	return false
}
