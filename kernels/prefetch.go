package kernels

// PrefetchRows asks the CPU to start loading the first rowBytes bytes of n
// rows of p that start stride bytes apart (one cache line of 64 bytes at a
// time), into all cache levels, and returns at once. It is a hint: no
// result changes (PREFETCHT0 on amd64, PRFM PLDL1KEEP on arm64, nothing
// elsewhere), and bounds are clamped to p rather than checked, so a
// caller may pass the next chunk of a walk even past its end.
//
// Attention at long context reads one KV head of every cached position: a
// few hundred bytes at a stride of a whole row, from memory. The hardware
// prefetchers follow such a walk only slowly (each row is a new 4 KiB page
// every few rows with base pages, and the stride is not a stream), so the
// loads of a chunk wait on memory one after another; prefetching the next
// chunk while the current one is computed overlaps them.
func PrefetchRows(p []byte, stride, rowBytes, n int) {
	if stride <= 0 || rowBytes <= 0 || n <= 0 || len(p) == 0 {
		return
	}
	n = min(n, (len(p)-1)/stride+1)
	// Whole lines inside p only: the last row may end before rowBytes,
	// and a hint about memory p does not own is harmless to the CPU but
	// not to a reader.
	last := len(p) - (n-1)*stride
	lines := (min(rowBytes, stride, last) + 63) / 64
	prefetchRowsImpl(p, stride, lines, n)
}
