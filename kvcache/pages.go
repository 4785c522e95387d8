package kvcache

import "fmt"

// pagesFor is the number of pages n positions occupy.
func (c *Cache) pagesFor(n int) int { return (n + c.page - 1) / c.page }

// Reserve makes room for positions [Len(seq), n) of sequence seq before a
// forward pass writes them: it appends pages up to ceil(n/PageSize) and
// replaces every shared page those positions fall in by a private copy
// (copy on write), so Store never writes a page another sequence reads. On
// error nothing has changed: ErrSeqFull when n exceeds NCtx, ErrPoolFull
// when the free pages do not suffice. It allocates no memory.
func (c *Cache) Reserve(seq, n int) error {
	if err := c.checkSeq(seq); err != nil {
		return err
	}
	if n > c.opt.NCtx {
		return fmt.Errorf("%w: sequence %d would hold %d positions, the limit is %d", ErrSeqFull, seq, n, c.opt.NCtx)
	}
	from := c.seqLen[seq]
	if n <= from {
		return nil
	}
	t := c.table[seq]
	want := c.pagesFor(n)
	need := max(0, want-len(t))
	for i := from / c.page; i < min(len(t), want); i++ {
		if c.ref[t[i]] > 1 {
			need++
		}
	}
	if need > c.nFree {
		return fmt.Errorf("%w: sequence %d needs %d more pages of %d positions, %d are free", ErrPoolFull, seq, need, c.page, c.nFree)
	}
	for i := from / c.page; i < min(len(t), want); i++ {
		if old := t[i]; c.ref[old] > 1 {
			p, _ := c.alloc(seq, i)
			c.copyRows(p, old, max(0, from-i*c.page))
			c.ref[old]--
			t[i] = p
		}
	}
	for len(c.table[seq]) < want {
		p, _ := c.alloc(seq, len(c.table[seq]))
		c.table[seq] = append(c.table[seq], p)
	}
	return nil
}

// release drops sequence seq's logical pages from index from on, freeing
// the physical pages no other sequence refers to.
func (c *Cache) release(seq, from int) {
	t := c.table[seq]
	for _, p := range t[min(from, len(t)):] {
		if c.ref[p]--; c.ref[p] == 0 {
			c.nFree++
		}
	}
	c.table[seq] = t[:min(from, len(t))]
}

// alloc takes a free page for logical page idx of seq (see pick), with a
// reference count of 1; false when none is free.
func (c *Cache) alloc(seq, idx int) (int32, bool) {
	if c.nFree == 0 {
		return -1, false
	}
	p := c.pick(seq, idx)
	c.ref[p] = 1
	c.nFree--
	return p, true
}

// pick chooses a free page so that sequences stay in long physically
// contiguous runs (attention walks a run with one kernel call): the
// sequence's home page in quota mode, else the page right after its
// previous one, else a page in the largest free gap (see largestGap).
// At least one page must be free.
func (c *Cache) pick(seq, idx int) int32 {
	if c.opt.Scatter {
		return c.lastFree()
	}
	if !c.opt.Unified {
		if home := seq*c.maxPages + idx; c.ref[home] == 0 {
			return int32(home)
		}
	}
	if idx > 0 {
		if next := int(c.table[seq][idx-1]) + 1; next < len(c.ref) && c.ref[next] == 0 {
			return int32(next)
		}
	}
	return c.largestGap()
}

// largestGap returns the start of the longest run of free pages when it
// begins the pool, else its middle page, which leaves the sequence that
// owns the page before the gap half of it to grow into. O(pages), run once
// per page a sequence starts (not per token).
func (c *Cache) largestGap() int32 {
	best, bestN := -1, 0
	for i := 0; i < len(c.ref); {
		if c.ref[i] != 0 {
			i++
			continue
		}
		j := i
		for j < len(c.ref) && c.ref[j] == 0 {
			j++
		}
		if j-i > bestN {
			best, bestN = i, j-i
		}
		i = j
	}
	if best > 0 {
		best += bestN / 2
	}
	return int32(best)
}

// lastFree returns the free page with the highest index (Options.Scatter).
func (c *Cache) lastFree() int32 {
	p := len(c.ref) - 1
	for c.ref[p] != 0 {
		p--
	}
	return int32(p)
}

// copyRows copies the first rows cells of physical page src to dst in
// every layer (the partial page of a fork, or a page written after a fork).
func (c *Cache) copyRows(dst, src int32, rows int) {
	if rows == 0 {
		return
	}
	d, s := int(dst)*c.page, int(src)*c.page
	for l := range c.opt.NLayer {
		copy(c.k[l][d*c.rowK:(d+rows)*c.rowK], c.k[l][s*c.rowK:])
		copy(c.v[l][d*c.rowV:(d+rows)*c.rowV], c.v[l][s*c.rowV:])
	}
}
