package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// buffer is the memory a pass reads: one or more segments read in order
// (the anonymous buffer is one segment; a model is one per tensor).
type buffer struct {
	segs [][]byte
	vec  bool // the bytes are float32 values the vector reader may read
}

func (b *buffer) len() int {
	n := 0
	for _, s := range b.segs {
		n += len(s)
	}
	return n
}

// share is thread i's part of t: the bytes [i*n/t, (i+1)*n/t) of the
// concatenated segments, boundaries rounded down to 64 bytes (a cache
// line), as sub-slices of the segments.
func (b *buffer) share(i, t int) [][]byte {
	n := b.len()
	from, to := (i*n/t)&^63, ((i+1)*n/t)&^63
	if i == t-1 {
		to = n
	}
	var out [][]byte
	off := 0
	for _, s := range b.segs {
		lo, hi := max(from-off, 0), min(to-off, len(s))
		if lo < hi {
			out = append(out, s[lo:hi])
		}
		off += len(s)
	}
	return out
}

// buffer makes the memory to read: -size MiB of anonymous memory filled
// with float32 ones, or the tensor data of -m through its mapping.
func (c *config) buffer() (*buffer, func(), string, error) {
	if c.model == "" {
		words := make([]float32, c.sizeMiB<<18) // 4-byte words
		for i := range words {
			words[i] = 1
		}
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*4)
		return &buffer{segs: [][]byte{b}, vec: true}, func() { runtime.KeepAlive(words) }, fmt.Sprintf("anonymous buffer of %d MiB", c.sizeMiB), nil
	}
	f, err := gguf.Open(c.model)
	if err != nil {
		return nil, nil, "", err
	}
	b := &buffer{}
	for i := range f.Tensors {
		if d := f.TensorData(&f.Tensors[i]); len(d) > 0 {
			b.segs = append(b.segs, d)
		}
	}
	if len(b.segs) == 0 {
		f.Close()
		return nil, nil, "", fmt.Errorf("%s has no tensor data", c.model)
	}
	return b, func() { f.Close() }, c.model + " tensor data (mapped)", nil
}

// sink keeps the readers' results alive.
var sink [256]float64

// readGo sums the segments as 64-bit words (sumWords), the bytes past the
// last word one by one.
func readGo(segs [][]byte) float64 {
	var total uint64
	for _, s := range segs {
		w := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s)/8)
		total += sumWords(w)
		for _, c := range s[len(w)*8:] {
			total += uint64(c)
		}
	}
	return float64(total)
}

// sumWords adds w into eight accumulators: eight independent add chains,
// so the loop issues loads as fast as the core takes them. A leaf with
// few live values, so every accumulator stays in a register.
func sumWords(w []uint64) uint64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	for len(w) >= 8 {
		q := w[:8:8]
		a0 += q[0]
		a1 += q[1]
		a2 += q[2]
		a3 += q[3]
		a4 += q[4]
		a5 += q[5]
		a6 += q[6]
		a7 += q[7]
		w = w[8:]
	}
	for _, v := range w {
		a0 += v
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
}

// readVec reads the segments with kernels.Dot of each with itself (one
// memory stream; the second operand's loads hit the same cache line).
func readVec(segs [][]byte) float64 {
	var total float64
	for _, s := range segs {
		f := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s)/4)
		total += float64(kernels.Dot(f, f))
	}
	return total
}

// pass runs read on every share at once, each on its own OS thread, and
// returns the time from the common start to the last thread's end.
func pass(shares [][][]byte, read func([][]byte) float64) time.Duration {
	return together(len(shares), func(i int) { sink[i%len(sink)] += read(shares[i]) })
}

// together runs f(0..t-1) at once, each on its own OS thread, and returns
// the time from the common start (every thread ready) to the last end.
func together(t int, f func(i int)) time.Duration {
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for i := range t {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-gate
			f(i)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(gate)
	done.Wait()
	return time.Since(t0)
}

// measure reads b with t threads: one pass not counted, then reps passes;
// it returns the best and the median GB/s.
func measure(b *buffer, t, reps int, read func([][]byte) float64) (best, med float64) {
	shares := make([][][]byte, t)
	for i := range shares {
		shares[i] = b.share(i, t)
	}
	pass(shares, read)
	gbs := make([]float64, reps)
	for r := range gbs {
		gbs[r] = float64(b.len()) / pass(shares, read).Seconds() / 1e9
	}
	slices.Sort(gbs)
	return gbs[reps-1], gbs[reps/2]
}

// cacheBytes is the in-cache buffer per thread: inside a 512 KiB or larger
// L2, the smallest L2 of the CPUs Waggle targets.
const cacheBytes = 256 << 10

// inCache is each reader's speed per thread when t threads each read
// their own cacheBytes buffer over and over (best of three passes).
func inCache(t int) (goGBs, vecGBs float64) {
	const rounds = 512 // 128 MiB per thread per pass
	shares := make([][][]byte, t)
	for i := range shares {
		words := make([]float32, cacheBytes/4)
		for j := range words {
			words[j] = 1
		}
		seg := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), cacheBytes)
		for range rounds {
			shares[i] = append(shares[i], seg)
		}
	}
	per := func(read func([][]byte) float64) float64 {
		best := math.Inf(1)
		for range 3 {
			best = min(best, pass(shares, read).Seconds())
		}
		return float64(cacheBytes*rounds) / best / 1e9
	}
	return per(readGo), per(readVec)
}

// int8Peak runs this CPU's int8 multiply-add loop on t threads at once
// and returns the best and median GOPS (integer operations, a multiply
// and an add each, per second) of reps passes of about 0.2 s; 0 when the
// CPU has no such loop.
func int8Peak(t, reps int) (best, med float64) {
	loop, opsPerRound, _ := int8Kernel()
	if loop == nil {
		return 0, 0
	}
	n := 1 << 16
	for { // calibrate: rounds per pass for about 0.2 s on one thread
		d := together(1, func(int) { loop(n) })
		if d > 50*time.Millisecond || n > 1<<34 {
			n = int(float64(n) * 0.2 / d.Seconds())
			break
		}
		n *= 4
	}
	gops := make([]float64, reps)
	for r := range gops {
		d := together(t, func(int) { loop(n) })
		gops[r] = float64(t) * float64(n) * opsPerRound / d.Seconds() / 1e9
	}
	slices.Sort(gops)
	return gops[reps-1], gops[reps/2]
}
