package eagle3

// ringRows is how many of a sequence's most recent features are kept: the
// last committed position's (the pending pair's) and those a cut prompt
// continuing a little before the end needs.
const ringRows = 64

// sequence is what the strategy holds for one sequence.
type sequence struct {
	id   int
	toks []int32 // committed tokens by position; -1 where a gap was never seen
	// holes counts the -1 entries of toks.
	holes int
	// kv: the drafter's cache holds the true pair (toks[P+1], g_P) at
	// every position P < kv.
	kv int
	// next is the position of the next pair a flush writes.
	next int
	// seedAt and seedTok: the last draft wrote the pair (seedTok, g_seedAt)
	// at seedAt, which becomes a true pair if seedTok is committed at
	// seedAt+1 (-1: none).
	seedAt  int
	seedTok int32
	// staged0 and stagedN locate this sequence's rows in the stage: they
	// are the inputs of its last stagedN positions.
	staged0, stagedN int
	// ring holds the features of recent positions: row i is position
	// tag[i] (-1: empty).
	ring []float32
	tag  []int
	d    int
	// tree is the sequence's tree of drafts in the making.
	tree grower
}

func newSequence(id, d, nCtx int) *sequence {
	st := &sequence{id: id, d: d, seedAt: -1, seedTok: -1, toks: make([]int32, 0, nCtx), ring: make([]float32, ringRows*d), tag: make([]int, ringRows)}
	for i := range st.tag {
		st.tag[i] = -1
	}
	return st
}

// cut prepares positions from pos on for new tokens, first of them first:
// later positions are forgotten, a gap before pos is filled with unknown
// tokens, and the pairs that no longer hold are dropped. A seed written
// with first at pos-1 is a true pair now.
func (st *sequence) cut(pos int, first int32) {
	keepSeed := st.seedAt >= 0 && st.seedAt == pos-1 && st.seedTok == first && st.kv == pos-1
	if pos < len(st.toks) {
		for _, t := range st.toks[pos:] {
			if t < 0 {
				st.holes--
			}
		}
		st.toks = st.toks[:pos]
		st.dropFeatures(pos)
	}
	for len(st.toks) < pos {
		st.toks = append(st.toks, -1)
		st.holes++
	}
	st.kv = min(st.kv, max(pos-1, 0))
	if keepSeed {
		st.kv = pos
	}
	st.seedAt, st.seedTok = -1, -1
}

// putFeature keeps g as the feature of position pos.
func (st *sequence) putFeature(pos int, g []float32) {
	i := pos % ringRows
	copy(st.ring[i*st.d:(i+1)*st.d], g)
	st.tag[i] = pos
}

// feature returns the kept feature of pos, or nil.
func (st *sequence) feature(pos int) []float32 {
	i := pos % ringRows
	if st.tag[i] != pos {
		return nil
	}
	return st.ring[i*st.d : (i+1)*st.d]
}

// dropFeatures forgets the features of positions >= from.
func (st *sequence) dropFeatures(from int) {
	for i, p := range st.tag {
		if p >= from {
			st.tag[i] = -1
		}
	}
}

// lastPair is the last position whose pair is known: both the token after
// it and every token before are (a gap stops it).
func (st *sequence) lastPair() int {
	end := len(st.toks)
	if st.holes > 0 {
		for p := st.kv; p < end; p++ {
			if st.toks[p] < 0 {
				end = p
				break
			}
		}
	}
	return end - 2
}

// current is the cheap check, each cycle, that the sequence holds the
// request's history: its length and last token, with no gap.
func (st *sequence) current(history []int32) bool {
	n := len(history)
	return st.holes == 0 && len(st.toks) == n && (n == 0 || st.toks[n-1] == history[n-1])
}

// matches is the full check that the sequence holds exactly toks.
func (st *sequence) matches(toks []int32) bool {
	if st.holes > 0 || len(st.toks) != len(toks) {
		return false
	}
	for i, t := range toks {
		if st.toks[i] != t {
			return false
		}
	}
	return true
}
