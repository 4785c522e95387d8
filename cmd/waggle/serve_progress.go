package main

import (
	"fmt"
	"os"
	"time"
)

// progress prints a loading bar on stderr while path is opened and its
// model built (the mmap is instant; building reads the tensors). It shows
// the file size and elapsed time, redrawn in place; stop ends the line.
func progress(path string) (stop func()) {
	size := int64(0)
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t0 := time.Now()
		spin := []string{"[=   ]", "[ =  ]", "[  = ]", "[   =]"}
		for i := 0; ; i++ {
			fmt.Fprintf(stderr, "\rwaggle: loading %s (%.1f MiB) %s %.1fs", path, float64(size)/(1<<20), spin[i%4], time.Since(t0).Seconds())
			select {
			case <-done:
				fmt.Fprintf(stderr, "\rwaggle: loaded %s (%.1f MiB) [====] %.1fs\n", path, float64(size)/(1<<20), time.Since(t0).Seconds())
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}
