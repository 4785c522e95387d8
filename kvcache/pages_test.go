package kvcache

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// grow reserves, stores and commits positions [Len, n) of seq, position p
// holding vec(0, tag, p) in every layer; it returns Reserve's error.
func grow(c *Cache, seq, n, tag int) error {
	from := c.Len(seq)
	if err := c.Reserve(seq, n); err != nil {
		return err
	}
	for p := from; p < n; p++ {
		for l := range c.opt.NLayer {
			c.Store(l, seq, p, vec(l, tag, p), vec(l+5, tag, p))
		}
	}
	c.SetLen(seq, n)
	return nil
}

// checkInvariants verifies the page accounting: every reference count
// equals the page-table entries naming the page, the free count matches,
// and every sequence has exactly the pages its length needs.
func checkInvariants(t *testing.T, c *Cache) {
	t.Helper()
	refs := make([]int32, len(c.ref))
	for s, tab := range c.table {
		if len(tab) != c.pagesFor(c.seqLen[s]) {
			t.Fatalf("sequence %d of length %d holds %d pages", s, c.seqLen[s], len(tab))
		}
		for _, p := range tab {
			refs[p]++
		}
	}
	free := 0
	for p, r := range c.ref {
		if r != refs[p] {
			t.Fatalf("page %d: count %d, referred to %d times", p, r, refs[p])
		}
		if r == 0 {
			free++
		}
	}
	if free != c.nFree {
		t.Fatalf("%d free pages, counted %d", c.nFree, free)
	}
}

func newPaged(t *testing.T, o Options) *Cache {
	t.Helper()
	o.NLayer, o.NKV, o.TypeK, o.TypeV = 2, 8, F32, F16
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRandomOpsMatchModel runs random grow/truncate/fork sequences on
// small pages in both modes and checks every stored row against a plain
// per-sequence model, plus the page accounting, after every operation.
func TestRandomOpsMatchModel(t *testing.T) {
	for _, unified := range []bool{false, true} {
		c := newPaged(t, Options{NCtx: 20, NSeq: 3, PageSize: 4, Unified: unified})
		model := make([][]int, 3) // per sequence: the tag each position was written with
		r := rand.New(rand.NewPCG(1, uint64(len(model))))
		for step := range 3000 {
			s := r.IntN(3)
			switch r.IntN(3) {
			case 0:
				n := min(20, c.Len(s)+1+r.IntN(6))
				tag := step % 7
				if err := grow(c, s, n, tag); err != nil {
					if !unified || !errors.Is(err, ErrPoolFull) {
						t.Fatalf("step %d: grow: %v", step, err)
					}
					continue
				}
				for len(model[s]) < n {
					model[s] = append(model[s], tag)
				}
			case 1:
				n := r.IntN(c.Len(s) + 1)
				if err := c.Truncate(s, n); err != nil {
					t.Fatal(err)
				}
				model[s] = model[s][:n]
			case 2:
				src := r.IntN(3)
				n := r.IntN(c.Len(src) + 1)
				if err := c.Fork(src, s, n); err != nil {
					if !errors.Is(err, ErrPoolFull) {
						t.Fatalf("step %d: fork: %v", step, err)
					}
					model[s] = nil
					continue
				}
				model[s] = append([]int(nil), model[src][:n]...)
			}
			checkInvariants(t, c)
			for q := range 3 {
				checkRows(t, c, q, model[q])
			}
		}
	}
}

func checkRows(t *testing.T, c *Cache, seq int, tags []int) {
	t.Helper()
	if c.Len(seq) != len(tags) {
		t.Fatalf("sequence %d: length %d, want %d", seq, c.Len(seq), len(tags))
	}
	for p, tag := range tags {
		for l := range c.opt.NLayer {
			if got := readRow(F32, c.KeyRow(l, seq, p)); !slices.Equal(got, vec(l, tag, p)) {
				t.Fatalf("sequence %d layer %d position %d: key %v, want tag %d", seq, l, p, got, tag)
			}
			if got := readRow(F16, c.ValueRow(l, seq, p)); !slices.Equal(got, vec(l+5, tag, p)) {
				t.Fatalf("sequence %d layer %d position %d: value %v, want tag %d", seq, l, p, got, tag)
			}
		}
	}
}

// TestForkSharesFullPages checks that Fork takes one new page (the copy of
// the partial last page) however long the prefix, and that writing into a
// shared page after a truncate copies it instead of changing the source.
func TestForkSharesFullPages(t *testing.T) {
	c := newPaged(t, Options{NCtx: 64, NSeq: 2, PageSize: 8, Unified: true})
	if err := grow(c, 0, 43, 1); err != nil {
		t.Fatal(err)
	}
	free := c.FreePages()
	if err := c.Fork(0, 1, 43); err != nil {
		t.Fatal(err)
	}
	if got := free - c.FreePages(); got != 1 {
		t.Fatalf("fork of 43 positions in pages of 8 took %d pages, want 1", got)
	}
	if err := c.Truncate(1, 20); err != nil { // inside shared page 2
		t.Fatal(err)
	}
	if err := grow(c, 1, 30, 2); err != nil {
		t.Fatal(err)
	}
	want := make([]int, 43)
	for i := range want {
		want[i] = 1
	}
	checkRows(t, c, 0, want)
	for i := 20; i < 30; i++ {
		want[i] = 2
	}
	checkRows(t, c, 1, want[:30])
	checkInvariants(t, c)
}

// TestUnifiedPool checks the unified pool's promise: sequences whose
// lengths sum to at most NCtx always fit, one sequence may take the whole
// pool, an append past the free pages fails with ErrPoolFull and leaves
// the cache unchanged, and Truncate gives the pages back.
func TestUnifiedPool(t *testing.T) {
	c := newPaged(t, Options{NCtx: 100, NSeq: 3, PageSize: 16, Unified: true})
	for _, lens := range [][3]int{{33, 33, 34}, {1, 1, 98}, {100, 0, 0}, {17, 50, 33}} {
		for s, n := range lens {
			if err := grow(c, s, n, s); err != nil {
				t.Fatalf("lengths %v: %v", lens, err)
			}
		}
		checkInvariants(t, c)
		for s := range 3 {
			_ = c.Truncate(s, 0)
		}
		if c.FreePages() != c.NumPages() {
			t.Fatalf("after truncating everything %d of %d pages are free", c.FreePages(), c.NumPages())
		}
	}
	if err := grow(c, 0, 101, 0); !errors.Is(err, ErrSeqFull) {
		t.Fatalf("a sequence past NCtx: %v", err)
	}
	if err := grow(c, 0, 96, 0); err != nil { // 6 of the 7+2 pages
		t.Fatal(err)
	}
	if err := grow(c, 1, 48, 1); err != nil { // the other 3
		t.Fatal(err)
	}
	if err := grow(c, 2, 1, 2); !errors.Is(err, ErrPoolFull) {
		t.Fatalf("a page from a full pool: %v", err)
	}
	if err := grow(c, 1, 49, 1); !errors.Is(err, ErrPoolFull) {
		t.Fatalf("a fourth page for sequence 1 from a full pool: %v", err)
	}
	if c.Len(2) != 0 || len(c.table[2]) != 0 || c.Len(1) != 48 || len(c.table[1]) != 3 {
		t.Fatalf("a failed reserve changed the cache: lengths %d, %d; pages %d, %d", c.Len(1), c.Len(2), len(c.table[1]), len(c.table[2]))
	}
	checkInvariants(t, c)
	_ = c.Truncate(0, 40)
	if err := grow(c, 2, 48, 2); err != nil {
		t.Fatalf("after truncating sequence 0: %v", err)
	}
}

// TestQuotaStaysContiguous checks that in quota mode every sequence is
// one span (its home pages), as the old fixed regions were, whatever the
// order of growth.
func TestQuotaStaysContiguous(t *testing.T) {
	c := newPaged(t, Options{NCtx: 100, NSeq: 3, PageSize: 16})
	for n := 1; n <= 100; n += 7 {
		for s := range 3 {
			if err := grow(c, s, min(n+s, 100), s); err != nil {
				t.Fatal(err)
			}
			if sp := c.Spans(s, c.Len(s), nil); len(sp) != 1 {
				t.Fatalf("sequence %d of %d positions in %d spans: %v", s, c.Len(s), len(sp), sp)
			}
		}
	}
}

// TestUnifiedInterleavedGrowth checks that sequences growing in turn in a
// unified pool stay in few spans (the allocator splits the largest gap).
func TestUnifiedInterleavedGrowth(t *testing.T) {
	c := newPaged(t, Options{NCtx: 1024, NSeq: 4, PageSize: 16, Unified: true})
	for n := 1; n <= 200; n++ {
		for s := range 4 {
			if err := grow(c, s, n, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	for s := range 4 {
		if sp := c.Spans(s, 200, nil); len(sp) > 2 {
			t.Errorf("sequence %d: %d spans: %v", s, len(sp), sp)
		}
	}
}

// TestSpans checks that spans cover [0, n) in order, merge adjacent pages
// and that KeyCells of a span reads the same rows as KeyRow.
func TestSpans(t *testing.T) {
	c := newPaged(t, Options{NCtx: 80, NSeq: 2, PageSize: 4, Unified: true})
	for n := 1; n <= 40; n++ { // interleaved growth
		for s := range 2 {
			if err := grow(c, s, n, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.Fork(0, 1, 18); err != nil { // shared pages, then a copy elsewhere
		t.Fatal(err)
	}
	if err := grow(c, 1, 40, 1); err != nil {
		t.Fatal(err)
	}
	if sp := c.Spans(1, 40, nil); len(sp) < 2 {
		t.Fatalf("a forked sequence is one span: %v", sp)
	}
	for s := range 2 {
		for n := range 41 {
			pos := 0
			for _, sp := range c.Spans(s, n, make([]Span, 0, c.MaxSpans())) {
				if sp.Pos != pos || sp.N <= 0 {
					t.Fatalf("span %+v at position %d", sp, pos)
				}
				rows := c.KeyCells(1, sp.Cell, sp.N)
				for i := range sp.N {
					if !slices.Equal(rows[i*c.rowK:(i+1)*c.rowK], c.KeyRow(1, s, pos+i)) {
						t.Fatalf("span %+v row %d differs from KeyRow", sp, i)
					}
				}
				pos += sp.N
			}
			if pos != n {
				t.Fatalf("spans cover %d of %d positions", pos, n)
			}
			if got, want := c.Keys(0, s, n), gatherRows(c, s, n); !slices.Equal(got, want) {
				t.Fatalf("Keys(%d, %d) differs from the rows", s, n)
			}
		}
	}
}

func gatherRows(c *Cache, seq, n int) []byte {
	var out []byte
	for p := range n {
		out = append(out, c.KeyRow(0, seq, p)...)
	}
	return out
}

// TestWarmPathAllocatesNothing checks that reserving, storing, committing,
// walking spans and truncating (the decode loop's cache verbs) allocate
// nothing once the cache exists.
func TestWarmPathAllocatesNothing(t *testing.T) {
	c := newPaged(t, Options{NCtx: 64, NSeq: 2, PageSize: 8, Unified: true})
	k, v := vec(0, 0, 0), vec(1, 0, 0)
	spans := make([]Span, 0, c.MaxSpans())
	a := testing.AllocsPerRun(20, func() {
		for p := range 40 {
			if err := c.Reserve(1, p+1); err != nil {
				t.Fatal(err)
			}
			c.Store(0, 1, p, k, v)
			c.SetLen(1, p+1)
			spans = c.Spans(1, p+1, spans)
		}
		if err := c.Truncate(1, 0); err != nil {
			t.Fatal(err)
		}
	})
	if a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}
