//go:build linux && amd64 && !purego

package turbo

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/waggle-llm/waggle/kernels"
	"golang.org/x/sys/unix"
)

// TestMeasureFused times one layer's attention work per token at 16K
// context in a 1B shape (8 KV heads of one block, 4 query heads each, 64-row
// chunks, rows 8 blocks apart as in the cache), fused against expand-then-
// float32-kernel, for values per type and for scores where they are
// fused, per kernel level. Thread CPU time (the machine is shared; wall time is not), the
// variants interleaved over rounds; it prints the medians and the median
// of the per-round ratios. Run with WAGGLE_MEASURE=1 -v (=scores or
// =values for one phase only).
func TestMeasureFused(t *testing.T) {
	if os.Getenv("WAGGLE_MEASURE") == "" {
		t.Skip("set WAGGLE_MEASURE=1 to measure")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	forExpandImpls(t, func(impl string) {
		if expandImpl == expandGo {
			return
		}
		for _, typ := range Types {
			m := newMeasure(typ)
			for _, phase := range []string{"scores", "values"} {
				if (phase == "scores" && !typ.FusedScores()) || (phase == "values" && !typ.FusedValues()) {
					continue // no kernel: the fused call would run the reference
				}
				if only := os.Getenv("WAGGLE_MEASURE"); only != "1" && only != phase {
					continue
				}
				var fused, expand, ratio []float64
				for range 9 {
					f := threadTime(func() { m.layer(phase, true) })
					e := threadTime(func() { m.layer(phase, false) })
					fused, expand, ratio = append(fused, f), append(expand, e), append(ratio, f/e)
				}
				fmt.Printf("%s %s %s: fused %.2f ms, expand %.2f ms, fused/expand %.3f (median of 9; range %.3f-%.3f)\n",
					impl, typ, phase, median(fused), median(expand), median(ratio), slices.Min(ratio), slices.Max(ratio))
			}
		}
	})
}

const (
	measureCtx   = 16384
	measureHeads = 8
	measureChunk = 64
)

type measure struct {
	typ    Type
	src    []byte
	probs  []float32 // 4 heads × measureCtx
	q      []float32
	acc    []float32 // 4 × 128
	scores []float32 // 4 × measureCtx
	rows   []float32 // (chunk+1) × 128
	pc     []float32
}

func newMeasure(typ Type) *measure {
	r := rand.New(rand.NewPCG(3, 4))
	bb := typ.BlockBytes()
	m := &measure{typ: typ, src: make([]byte, measureCtx*measureHeads*bb),
		probs: make([]float32, 4*measureCtx), q: gaussianRow(r, 4*BlockSize),
		acc: make([]float32, 4*BlockSize), scores: make([]float32, 4*measureCtx),
		rows: make([]float32, (measureChunk+1)*BlockSize), pc: make([]float32, measureChunk+1)}
	blk := make([]byte, 64*bb)
	for i := range 64 {
		copy(blk[i*bb:], mustEncodeQuiet(typ, gaussianRow(r, BlockSize)))
	}
	for i := 0; i < len(m.src); i += len(blk) {
		copy(m.src[i:], blk)
	}
	for i := range m.probs {
		m.probs[i] = r.Float32() / measureCtx
	}
	return m
}

func mustEncodeQuiet(typ Type, x []float32) []byte {
	row := make([]byte, typ.RowBytes(len(x)))
	if err := typ.Encode(row, x); err != nil {
		panic(err)
	}
	return row
}

// layer runs one phase over every chunk and KV head, as engine.kvGroups.
func (m *measure) layer(phase string, fused bool) {
	bb := m.typ.BlockBytes()
	stride := measureHeads * bb
	for off := 0; off < measureCtx; off += measureChunk {
		for g := range measureHeads {
			src := m.src[off*stride+g*bb:]
			switch {
			case phase == "scores" && fused:
				m.typ.ScoreRows4(m.scores[off:], measureCtx, m.q, 4, src, stride, measureChunk)
			case phase == "scores":
				m.typ.ExpandRows(m.rows[:measureChunk*BlockSize], src, stride, measureChunk)
				for j := range 4 {
					kernels.AttnScores(kernels.F32, m.scores[j*measureCtx+off:j*measureCtx+off+measureChunk],
						f32View(m.rows[:measureChunk*BlockSize]), 4*BlockSize, f32View(m.q[j*BlockSize:(j+1)*BlockSize]), BlockSize)
				}
			case fused:
				m.typ.AccumulateRows4(m.acc, BlockSize, m.probs[off:], measureCtx, 4, src, stride, measureChunk)
			default:
				m.typ.ExpandRows(m.rows[BlockSize:], src, stride, measureChunk)
				for j := range 4 {
					a := m.acc[j*BlockSize : (j+1)*BlockSize]
					copy(m.rows, a)
					m.pc[0] = 1
					copy(m.pc[1:], m.probs[j*measureCtx+off:j*measureCtx+off+measureChunk])
					kernels.AttnValues(kernels.F32, a, m.pc, f32View(m.rows), 4*BlockSize)
				}
			}
		}
	}
}

// f32View is x's memory as bytes, without copying.
func f32View(x []float32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x)) }

// threadTime returns f's thread CPU time in ms (the caller has locked the
// goroutine to its thread).
func threadTime(f func()) float64 {
	var a, b unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &a)
	f()
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &b)
	return float64(b.Nano()-a.Nano()) / 1e6
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	return s[len(s)/2]
}
