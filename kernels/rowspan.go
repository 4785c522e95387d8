package kernels

import (
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// Row scheduling of the decode products (DecodeMatMul).
//
// A decode-step product is memory bound and short (tens to hundreds of
// microseconds), and both of the costs of splitting it show: a worker that
// finishes early idles until the last one is done, and every time a worker
// starts on rows that do not follow the ones it just read, the first few
// kernel calls wait on memory before the kernels' prefetching (eight rows
// ahead) and the hardware's have caught up. Fixed chunks trade one against
// the other: with four chunks per worker the finishing worker waited on
// average half a chunk, measured as 11% of the two threads' time in the
// products of a 1B Q4_K_M decode step.
//
// So each worker owns one contiguous span of rows, which it claims from
// the front a few rows at a time and reads as one stream; a worker whose
// span is done takes the same few rows at a time from the back of the
// others' spans. The wait at the end is then at most one claim, and only
// the stolen claims start cold.

// rowSpan is the rows [front, back) of one worker's span not yet claimed,
// packed into one word so that the owner (taking from the front) and
// thieves (taking from the back) claim with one compare-and-swap.
type rowSpan struct {
	state atomic.Uint64
	_     cpu.CacheLinePad // owners and thieves of different spans do not share a line
}

func packSpan(front, back int) uint64 { return uint64(back)<<32 | uint64(uint32(front)) }

func unpackSpan(s uint64) (front, back int) { return int(uint32(s)), int(s >> 32) }

// claimFront takes up to n rows from the front of the span: [a, b), or ok
// false when it is empty.
func (s *rowSpan) claimFront(n int) (a, b int, ok bool) {
	for {
		old := s.state.Load()
		front, back := unpackSpan(old)
		if front >= back {
			return 0, 0, false
		}
		end := min(front+n, back)
		if s.state.CompareAndSwap(old, packSpan(end, back)) {
			return front, end, true
		}
	}
}

// claimBack takes up to n rows from the back of the span: [a, b), with a
// rounded down to a multiple of align (but not below the front), or ok
// false when it is empty. With span bounds and claims multiples of align,
// every piece but one ending at the last row is whole four-row groups.
func (s *rowSpan) claimBack(n, align int) (a, b int, ok bool) {
	for {
		old := s.state.Load()
		front, back := unpackSpan(old)
		if front >= back {
			return 0, 0, false
		}
		start := max(front, (back-n)/align*align)
		if s.state.CompareAndSwap(old, packSpan(front, start)) {
			return start, back, true
		}
	}
}

// rowSpans schedules the rows of one product across workers: spans holds
// one span per worker, claim is the rows per claim.
type rowSpans struct {
	spans []rowSpan
	claim int
}

// spanClaimBytes is about the weight bytes (times columns) of one claim:
// large enough that the claims' compare-and-swaps cost nothing next to the
// rows (~1.5 µs of reading at decode speed), small enough that the last
// claim leaves the other workers little to wait for.
const spanClaimBytes = 32 << 10

// plan splits rows into nWorkers spans whose bounds are multiples of
// chunkAlign (so four-row groups never straddle two spans and destination
// lines are not shared), with claims of about spanClaimBytes given
// rowBytes per row. It allocates only when the pool has grown.
func (s *rowSpans) plan(nWorkers, rows, rowBytes int) {
	if len(s.spans) < nWorkers {
		s.spans = make([]rowSpan, nWorkers)
	}
	per := (rows + nWorkers - 1) / nWorkers
	per = (per + chunkAlign - 1) / chunkAlign * chunkAlign
	for w := range nWorkers {
		s.spans[w].state.Store(packSpan(min(w*per, rows), min((w+1)*per, rows)))
	}
	s.claim = max(chunkAlign, (spanClaimBytes/max(rowBytes, 1)+chunkAlign-1)/chunkAlign*chunkAlign)
}

// rowsRunner computes a piece of rows [r0, r1) of a scheduled product.
type rowsRunner interface {
	runRows(r0, r1 int)
}

// run has t compute every piece worker claims: its own span front to back,
// then the other spans' leftovers back to front, until every span of the
// nWorkers is empty.
func (s *rowSpans) run(worker, nWorkers int, t rowsRunner) {
	own := &s.spans[worker]
	for a, b, ok := own.claimFront(s.claim); ok; a, b, ok = own.claimFront(s.claim) {
		t.runRows(a, b)
	}
	for i := 1; i < nWorkers; i++ {
		v := &s.spans[(worker+i)%nWorkers]
		for a, b, ok := v.claimBack(s.claim, chunkAlign); ok; a, b, ok = v.claimBack(s.claim, chunkAlign) {
			t.runRows(a, b)
		}
	}
}
