package quantize

import (
	"io"
	"runtime"
	"sync"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// chunkValues is about how many values one worker converts per step: big
// enough to amortise the hand-off, small enough that threads × chunk stays
// a few megabytes.
const chunkValues = 1 << 18

// EncodeRows writes rows rows of cols values as type typ to w, in order.
// row(r, dst) must fill dst (len cols) with row r as float32; it is called
// from several goroutines at once (threads of them; <= 0 means GOMAXPROCS),
// each with its own dst. Quantization follows Row.
func EncodeRows(w io.Writer, typ gguf.Type, cols, rows, threads int, row func(r int, dst []float32)) error {
	kt := kernels.DType(typ)
	rowBytes := kt.RowBytes(cols)
	per := max(1, chunkValues/cols)
	nChunks := (rows + per - 1) / per
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, nChunks)
	// Chunk c is done by worker c%threads into slot c%threads; results are
	// written in chunk order, each slot reused once its bytes are written.
	type slot struct {
		buf   []byte
		ready chan struct{}
		free  chan struct{}
	}
	slots := make([]slot, threads)
	for i := range slots {
		slots[i] = slot{buf: make([]byte, per*rowBytes), ready: make(chan struct{}, 1), free: make(chan struct{}, 1)}
		slots[i].free <- struct{}{}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vals := make([]float32, cols)
			s := &slots[t]
			for c := t; c < nChunks; c += threads {
				select {
				case <-s.free:
				case <-stop:
					return
				}
				for r := c * per; r < min(rows, (c+1)*per); r++ {
					row(r, vals)
					off := (r - c*per) * rowBytes
					Row(kt, s.buf[off:off+rowBytes], vals)
				}
				s.ready <- struct{}{}
			}
		}()
	}
	var err error
	for c := 0; c < nChunks && err == nil; c++ {
		s := &slots[c%threads]
		<-s.ready
		n := min(rows, (c+1)*per) - c*per
		_, err = w.Write(s.buf[:n*rowBytes])
		s.free <- struct{}{}
	}
	close(stop)
	wg.Wait()
	return err
}
