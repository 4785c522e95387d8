package grammar

import (
	"slices"
	"strings"
)

// Vocab is what a Matcher needs of a tokenizer (*tokenizer.Tokenizer
// satisfies it). Piece(id, true) must be llama.cpp's token_to_piece with
// special tokens rendered, the text the grammar sees.
type Vocab interface {
	NVocab() int
	Piece(id int32, special bool) string
	IsEOG(id int32) bool
}

// Index is the per-vocabulary side of grammar matching, built once and
// shared read-only by every Matcher on that vocabulary: each token's piece
// decoded to code points (from a fresh UTF-8 state), its trailing partial
// sequence, and a trie over the decoded pieces that lets a Filter walk
// shared prefixes once.
type Index struct {
	n      int
	pieces []string // cut at the first NUL byte
	eog    []bool
	dead   []bool // not end-of-generation, and the piece is empty: never allowed

	cpStart []int32  // token i's code points are cps[cpStart[i]:cpStart[i+1]]
	cps     []uint32 // cut at a zero code point, as llama.cpp's arrays end there
	tail    []partial

	// The trie: tokens sorted by code points (order), rank[id] its index
	// there or -1, nodes with contiguous children.
	order []int32
	rank  []int32
	nodes []trieNode
}

// trieNode covers the sorted tokens [lo, hi) sharing its prefix; those in
// [lo, ends) have no more code points. Its children are
// nodes[child:child+nChild], each reached by code point ch.
type trieNode struct {
	ch     uint32
	lo, hi int32
	ends   int32
	child  int32
	nChild int32
	depth  int32
}

// NewIndex decodes every piece of v and builds the trie.
func NewIndex(v Vocab) *Index {
	n := v.NVocab()
	ix := &Index{n: n, pieces: make([]string, n), eog: make([]bool, n), dead: make([]bool, n),
		cpStart: make([]int32, n+1), tail: make([]partial, n), rank: make([]int32, n)}
	for id := range n {
		p := v.Piece(int32(id), true)
		if i := strings.IndexByte(p, 0); i >= 0 {
			p = p[:i]
		}
		ix.pieces[id] = p
		ix.eog[id] = v.IsEOG(int32(id))
		ix.dead[id] = !ix.eog[id] && p == ""
		ix.cpStart[id] = int32(len(ix.cps))
		if !ix.eog[id] && !ix.dead[id] {
			start := len(ix.cps)
			ix.cps, ix.tail[id] = decodePiece(ix.cps, p, partial{})
			ix.cps = ix.cps[:start+len(untilZero(ix.cps[start:]))]
		}
	}
	ix.cpStart[n] = int32(len(ix.cps))
	ix.buildTrie()
	return ix
}

// NVocab returns the vocabulary size.
func (ix *Index) NVocab() int { return ix.n }

func (ix *Index) codePoints(id int32) []uint32 {
	return ix.cps[ix.cpStart[id]:ix.cpStart[id+1]]
}

func (ix *Index) buildTrie() {
	for id := range ix.rank {
		ix.rank[id] = -1
		if !ix.eog[id] && !ix.dead[id] {
			ix.order = append(ix.order, int32(id))
		}
	}
	slices.SortFunc(ix.order, func(a, b int32) int {
		if c := slices.Compare(ix.codePoints(a), ix.codePoints(b)); c != 0 {
			return c
		}
		return int(a - b)
	})
	for i, id := range ix.order {
		ix.rank[id] = int32(i)
	}
	ix.nodes = append(ix.nodes[:0], trieNode{lo: 0, hi: int32(len(ix.order))})
	// Breadth first: node i's children are appended as one block, each one
	// code point deeper.
	for i := 0; i < len(ix.nodes); i++ {
		nd := ix.nodes[i]
		d := int(nd.depth)
		j := nd.lo
		for j < nd.hi && len(ix.codePoints(ix.order[j])) == d {
			j++
		}
		ix.nodes[i].ends = j
		ix.nodes[i].child = int32(len(ix.nodes))
		for j < nd.hi {
			c := ix.codePoints(ix.order[j])[d]
			k := j + 1
			for k < nd.hi && ix.codePoints(ix.order[k])[d] == c {
				k++
			}
			ix.nodes = append(ix.nodes, trieNode{ch: c, lo: j, hi: k, depth: int32(d + 1)})
			j = k
		}
		ix.nodes[i].nChild = int32(len(ix.nodes)) - ix.nodes[i].child
	}
}
