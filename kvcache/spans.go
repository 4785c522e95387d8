package kvcache

// Span is a run of positions [Pos, Pos+N) of one sequence stored in the
// consecutive cells [Cell, Cell+N) of every layer, so its key (value) rows
// are one strided block (KeyCells, ValueCells).
type Span struct{ Pos, Cell, N int }

// MaxSpans is the most spans Spans returns for one sequence: one per page.
func (c *Cache) MaxSpans() int { return c.maxPages }

// Spans returns, in dst[:0], the spans covering positions [0, n) of
// sequence seq in position order, merging physically adjacent pages into
// one span. n must lie within the reserved pages. It allocates nothing
// when cap(dst) >= MaxSpans().
func (c *Cache) Spans(seq, n int, dst []Span) []Span {
	dst = dst[:0]
	t := c.table[seq]
	for pos := 0; pos < n; pos += c.page {
		cell := int(t[pos/c.page]) * c.page
		m := min(c.page, n-pos)
		if k := len(dst) - 1; k >= 0 && dst[k].Cell+dst[k].N == cell {
			dst[k].N += m
			continue
		}
		dst = append(dst, Span{Pos: pos, Cell: cell, N: m})
	}
	return dst
}

// Cell returns the physical cell of position pos of sequence seq, which
// must lie in a reserved page.
func (c *Cache) Cell(seq, pos int) int { return c.cell(seq, pos) }

// KeyCells returns the key rows of cells [cell, cell+n) of one layer.
func (c *Cache) KeyCells(layer, cell, n int) []byte {
	return c.k[layer][cell*c.rowK : (cell+n)*c.rowK]
}

// ValueCells returns the value rows of cells [cell, cell+n) of one layer.
func (c *Cache) ValueCells(layer, cell, n int) []byte {
	return c.v[layer][cell*c.rowV : (cell+n)*c.rowV]
}

// Keys returns rows [0, n) of sequence seq in one layer, contiguous: the
// cache's own memory when they form one span, otherwise a gathered copy
// (allocated; for tests and state files, not the decode path, which walks
// Spans).
func (c *Cache) Keys(layer, seq, n int) []byte {
	return c.gather(c.KeyCells, c.rowK, layer, seq, n)
}

// Values is Keys for the value rows.
func (c *Cache) Values(layer, seq, n int) []byte {
	return c.gather(c.ValueCells, c.rowV, layer, seq, n)
}

func (c *Cache) gather(cells func(layer, cell, n int) []byte, row, layer, seq, n int) []byte {
	sp := c.Spans(seq, n, nil)
	if len(sp) == 0 {
		return nil
	}
	if len(sp) == 1 {
		return cells(layer, sp[0].Cell, n)
	}
	out := make([]byte, 0, n*row)
	for _, s := range sp {
		out = append(out, cells(layer, s.Cell, s.N)...)
	}
	return out
}
