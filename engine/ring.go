package engine

import "fmt"

// HiddenRing holds the captured hidden-state rows (Tapper.Tapped) of the
// most recent positions of one sequence, the store a hidden-state drafter
// reads its context window from (DFlash's per-slot ring of 4096 rows). Row
// p is the row of the token at position p; the ring holds the rows of the
// consecutive positions [Start(), End()), at most Size() of them, and
// appending past a full ring overwrites the oldest row. Memory:
// Size()·Width() float32, allocated once.
//
// The caller appends the rows of the tokens its sequence commits (the
// prompt, the accepted tokens of a verify batch) and truncates it when the
// sequence is cut. Every removal advances Generation, so a consumer that
// caches something derived from the rows (a drafter's projected keys)
// can tell that the rows it saw changed.
type HiddenRing struct {
	width      int
	rows       []float32
	size       int
	start, end int
	gen        uint64
}

// NewHiddenRing makes a ring of size rows of width values.
func NewHiddenRing(size, width int) (*HiddenRing, error) {
	if size <= 0 || width <= 0 || size > 1<<20 || width > 1<<24 || int64(size)*int64(width) > 1<<32 {
		return nil, fmt.Errorf("engine: hidden ring of %d rows of %d values out of range", size, width)
	}
	return &HiddenRing{width: width, size: size, rows: make([]float32, size*width)}, nil
}

// Width is the number of values per row.
func (r *HiddenRing) Width() int { return r.width }

// Size is the most rows the ring holds.
func (r *HiddenRing) Size() int { return r.size }

// Start is the position of the oldest row held.
func (r *HiddenRing) Start() int { return r.start }

// End is one past the position of the newest row held: the position the
// next Append fills.
func (r *HiddenRing) End() int { return r.end }

// Len is the number of rows held, End()-Start().
func (r *HiddenRing) Len() int { return r.end - r.start }

// Generation changes whenever rows are removed (Truncate, Reset).
func (r *HiddenRing) Generation() uint64 { return r.gen }

// Append stores row (Width() values) as position End().
func (r *HiddenRing) Append(row []float32) {
	if len(row) != r.width {
		panic(fmt.Sprintf("engine: HiddenRing.Append of %d values into rows of %d", len(row), r.width))
	}
	copy(r.slot(r.end), row)
	r.end++
	if r.end-r.start > r.size {
		r.start++
	}
}

// Row returns the row of position pos, which must lie in [Start(), End()).
// It aliases the ring's storage.
func (r *HiddenRing) Row(pos int) []float32 {
	if pos < r.start || pos >= r.end {
		panic(fmt.Sprintf("engine: HiddenRing.Row(%d) outside [%d, %d)", pos, r.start, r.end))
	}
	return r.slot(pos)
}

func (r *HiddenRing) slot(pos int) []float32 {
	i := pos % r.size
	return r.rows[i*r.width : (i+1)*r.width]
}

// Truncate drops the rows of positions >= pos. A pos below Start() empties
// the ring and makes pos the next position; a pos at or past End() changes
// nothing.
func (r *HiddenRing) Truncate(pos int) {
	if pos >= r.end {
		return
	}
	r.gen++
	if pos < r.start {
		r.start = max(pos, 0)
	}
	r.end = max(pos, r.start)
}

// Reset empties the ring; the next Append fills position pos.
func (r *HiddenRing) Reset(pos int) {
	r.gen++
	r.start, r.end = pos, pos
}
