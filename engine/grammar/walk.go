package grammar

// bitsetCache keeps the accepted-token sets of the last few parse states
// (keyed by stack set id), so a state the generation returns to (the inside
// of a JSON string, a list separator) costs one lookup instead of a walk.
type bitsetCache struct {
	keys  []int32
	bits  [][]uint64
	clock []uint64
	tick  uint64
}

// bitsetCacheSize is how many states keep their bitsets (each is
// vocabulary/8 bytes).
const bitsetCacheSize = 32

func (c *bitsetCache) get(id int32) []uint64 {
	for i, k := range c.keys {
		if k == id {
			c.tick++
			c.clock[i] = c.tick
			return c.bits[i]
		}
	}
	return nil
}

// slot returns a zeroed bitset of n bits for state id, evicting the least
// recently used entry when full.
func (c *bitsetCache) slot(id int32, n int) []uint64 {
	c.tick++
	words := (n + 63) / 64
	if len(c.keys) < bitsetCacheSize {
		c.keys = append(c.keys, id)
		c.bits = append(c.bits, make([]uint64, words))
		c.clock = append(c.clock, c.tick)
		return c.bits[len(c.bits)-1]
	}
	old := 0
	for i := range c.clock {
		if c.clock[i] < c.clock[old] {
			old = i
		}
	}
	c.keys[old], c.clock[old] = id, c.tick
	clear(c.bits[old])
	return c.bits[old]
}

func hasBit(b []uint64, i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func setBit(b []uint64, i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }

// walkFrame is one pending trie node and the parse set reached there.
type walkFrame struct {
	node int32
	set  int32
}

// accepted returns the bitset of the non-end-of-generation tokens set id
// accepts when no partial UTF-8 sequence is pending: the trie is walked
// depth first, each edge advancing the set by its code point, and
// subtrees whose set is empty are skipped. The frames slice is scratch.
func (sp *space) accepted(ix *Index, id int32, frames *[]walkFrame) []uint64 {
	if b := sp.cache.get(id); b != nil {
		return b
	}
	bits := sp.cache.slot(id, ix.n)
	st := append((*frames)[:0], walkFrame{0, id})
	for len(st) > 0 {
		f := st[len(st)-1]
		st = st[:len(st)-1]
		nd := &ix.nodes[f.node]
		for r := nd.lo; r < nd.ends; r++ {
			tok := ix.order[r]
			if sp.endOK(f.set, ix.tail[tok]) {
				setBit(bits, tok)
			}
		}
		sp.markTokenTops(ix, f.set, nd, bits)
		if !sp.info[f.set].hasChar {
			continue
		}
		for c := nd.child; c < nd.child+nd.nChild; c++ {
			if next := sp.next(f.set, ix.nodes[c].ch); next != 0 {
				st = append(st, walkFrame{c, next})
			}
		}
		if sp.t.err != nil {
			break
		}
	}
	*frames = st[:0]
	return bits
}

// markTokenTops accepts the tokens below nd that still have code points
// and satisfy a token element on top of a stack of set id.
func (sp *space) markTokenTops(ix *Index, id int32, nd *trieNode, bits []uint64) {
	g := sp.t.g
	for _, pos := range sp.info[id].tokenTops {
		e := g.elems[pos]
		if e.k == kToken {
			if int(e.v) < ix.n {
				if r := ix.rank[e.v]; r >= nd.ends && r < nd.hi {
					setBit(bits, int32(e.v))
				}
			}
			continue
		}
		for r := nd.ends; r < nd.hi; r++ {
			if tok := ix.order[r]; uint32(tok) != e.v {
				setBit(bits, tok)
			}
		}
	}
}
