package kernels

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// spanRecorder counts how often each row was computed and by whom.
type spanRecorder struct {
	rows   int
	counts []atomic.Int32
	by     []atomic.Int32 // worker+1 that computed the row
	bad    atomic.Value   // first malformed piece, as a string
}

// spanWorker is the runner a worker passes to rowSpans.run: it records its
// pieces under its own index and sleeps delay after each.
type spanWorker struct {
	rec    *spanRecorder
	worker int
	delay  time.Duration
}

func (w spanWorker) runRows(r0, r1 int) {
	rec := w.rec
	if r0 >= r1 || r0%chunkAlign != 0 || (r1%chunkAlign != 0 && r1 != rec.rows) {
		rec.bad.CompareAndSwap(nil, "piece not aligned")
	}
	for r := r0; r < r1; r++ {
		rec.counts[r].Add(1)
		rec.by[r].Store(int32(w.worker + 1))
	}
	time.Sleep(w.delay)
}

// runSpans plans rows over n workers and runs the workers listed in
// start concurrently (the others never start, like descheduled threads),
// worker w sleeping delays[w] after each piece, and worker 1 (if it runs)
// starting lag after the others.
func runSpans(t *testing.T, n, rows, rowBytes int, start []int, delays []time.Duration, lag time.Duration) *spanRecorder {
	t.Helper()
	var s rowSpans
	s.plan(n, rows, rowBytes)
	rec := &spanRecorder{rows: rows, counts: make([]atomic.Int32, rows), by: make([]atomic.Int32, rows)}
	var wg sync.WaitGroup
	for _, w := range start {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w == 1 {
				time.Sleep(lag)
			}
			s.run(w, n, spanWorker{rec: rec, worker: w, delay: delays[w]})
		}()
	}
	wg.Wait()
	if bad := rec.bad.Load(); bad != nil {
		t.Fatalf("n=%d rows=%d rowBytes=%d: %s", n, rows, rowBytes, bad)
	}
	for r := range rows {
		if c := rec.counts[r].Load(); c != 1 {
			t.Fatalf("n=%d rows=%d rowBytes=%d: row %d computed %d times", n, rows, rowBytes, r, c)
		}
	}
	return rec
}

// TestRowSpansCoverEveryRowOnce: with any worker count, row count and row
// size, the workers together compute every row exactly once, in pieces
// that start on a multiple of chunkAlign rows and end on one or at the
// last row, also when only some workers ever run.
func TestRowSpansCoverEveryRowOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + r.IntN(6)
		rows := r.IntN(2000)
		rowBytes := []int{34, 144, 1152, 6720, 1 << 20}[r.IntN(5)]
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		delays := make([]time.Duration, n)
		runSpans(t, n, rows, rowBytes, all, delays, 0)
		runSpans(t, n, rows, rowBytes, all[:1+r.IntN(n)], delays, 0)
	}
}

// TestRowSpansSteal: a worker that has finished its own span takes rows
// from the back of a slow worker's span, so the slow one is not left to
// finish alone, while the slow one keeps the front of its span.
func TestRowSpansSteal(t *testing.T) {
	const rows, rowBytes = 1024, 4096 // claims of 16 rows: 32 per span
	rec := runSpans(t, 2, rows, rowBytes, []int{0, 1}, []time.Duration{time.Millisecond, 0}, 2*time.Millisecond)
	if got := rec.by[rows/2-1].Load(); got != 2 {
		t.Fatalf("the last row of the slow worker's span was computed by worker %d, want the fast one (2)", got-1)
	}
	if got := rec.by[0].Load(); got != 1 {
		t.Fatalf("the first row of the slow worker's span was computed by worker %d, want its owner (0)", got-1)
	}
}

// TestRowSpansClaimSize: a claim is about spanClaimBytes of rows, a
// multiple of chunkAlign and never below it.
func TestRowSpansClaimSize(t *testing.T) {
	for _, c := range []struct{ rowBytes, want int }{
		{1152, 32}, {1680, 32}, {4608, 16}, {34, 976}, {1 << 20, 16},
	} {
		var s rowSpans
		s.plan(2, 100000, c.rowBytes)
		if s.claim != c.want {
			t.Errorf("rowBytes %d: claim %d rows, want %d", c.rowBytes, s.claim, c.want)
		}
	}
}
