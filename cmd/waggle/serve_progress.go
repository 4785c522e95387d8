package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/waggle-llm/waggle/engine"
)

// loadWithProgress opens the model and then reads one byte of every page
// of its tensor data, so the weights are in memory before the first
// request instead of being faulted in during it. On a terminal it redraws
// one line with the percent of tensor bytes touched; the line always ends
// with a newline, and other writers (a --log-file) get just that final
// line.
func loadWithProgress(log io.Writer, path string) (*engine.Loaded, error) {
	t0 := time.Now()
	l, err := engine.LoadFile(path)
	if err != nil {
		return nil, err
	}
	var total int64
	for i := range l.File.Tensors {
		total += l.File.Tensors[i].Size
	}
	live := isTerminal(log)
	var last time.Time
	touchWeights(l, func(done int64) {
		if live && time.Since(last) >= 100*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(log, "\rwaggle: loading %s: %3.0f%% of %.1f MiB", path, percent(done, total), mib(total))
		}
	})
	prefix := ""
	if live {
		prefix = "\r"
	}
	fmt.Fprintf(log, "%swaggle: loaded %s: 100%% of %.1f MiB in %.1fs\n", prefix, path, mib(total), time.Since(t0).Seconds())
	return l, nil
}

// touchSink keeps the page reads of touchWeights observable.
var touchSink byte

// touchWeights reads one byte per 4 KiB page of every tensor's data,
// calling progress with the bytes covered so far after each tensor.
func touchWeights(l *engine.Loaded, progress func(done int64)) {
	var done int64
	var x byte
	for i := range l.File.Tensors {
		d := l.File.TensorData(&l.File.Tensors[i])
		for off := 0; off < len(d); off += 4096 {
			x ^= d[off]
		}
		done += int64(len(d))
		progress(done)
	}
	touchSink = x
}

func percent(done, total int64) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(done) / float64(total)
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// isTerminal reports whether w is a character device (a terminal), where
// a line redrawn with \r reads well.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
