//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

func TestAdd(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, nb int }{{1, 1}, {1000, 1000}, {3 * 96, 96}, {70001, 70001}} {
		a, b := randFloats(rng, c.n, 1), randFloats(rng, c.nb, 1)
		ab, bb, db := buffer(t, d, r, a, 0), buffer(t, d, r, b, 0), buffer(t, d, r, nil, c.n)
		run(t, r, func() { r.Add(db.All(), ab.All(), bb.All(), c.n, c.nb) })
		want := make([]float32, c.n)
		for i := range want {
			want[i] = a[i] + b[i%c.nb]
		}
		checkNMSE(t, "add", download(t, r, db, c.n), want, tolElementwise)
	}
}

func TestSwiGLU(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(3, 4))
	n := 5000
	g, u := randFloats(rng, n, 3), randFloats(rng, n, 1)
	gb, ub := buffer(t, d, r, g, 0), buffer(t, d, r, u, 0)
	run(t, r, func() { r.SwiGLU(gb.All(), gb.All(), ub.All(), n) })
	want := make([]float32, n)
	kernels.SwiGLU(want, g, u)
	checkNMSE(t, "swiglu", download(t, r, gb, n), want, tolElementwise)
}

func TestRMSNorm(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ rows, width int }{{1, 8}, {3, 172}, {17, 4096}, {40, 64}} {
		x, w := randFloats(rng, c.rows*c.width, 2), randFloats(rng, c.width, 1)
		xb, wb, db := buffer(t, d, r, x, 0), buffer(t, d, r, w, 0), buffer(t, d, r, nil, c.rows*c.width)
		run(t, r, func() { r.RMSNorm(db.All(), xb.All(), wb.All(), c.rows, c.width, 1e-5) })
		want := make([]float32, len(x))
		for i := range c.rows {
			row := want[i*c.width : (i+1)*c.width]
			kernels.RMSNorm(row, x[i*c.width:(i+1)*c.width], 1e-5)
			kernels.Mul(row, row, w)
		}
		checkNMSE(t, "rmsnorm", download(t, r, db, len(x)), want, tolElementwise)
		run(t, r, func() { r.RMSNorm(xb.All(), xb.All(), wb.All(), c.rows, c.width, 1e-5) }) // in place
		checkNMSE(t, "rmsnorm in place", download(t, r, xb, len(x)), want, tolElementwise)
	}
}

func TestRope(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, neox := range []bool{false, true} {
		for _, c := range []struct{ nTok, nHead, headDim, nRot int }{{1, 4, 64, 64}, {5, 8, 128, 128}, {3, 2, 64, 16}} {
			p := kernels.RopeParams{NRot: c.nRot, FreqBase: 10000, FreqScale: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, NCtxOrig: 4096}
			stride := c.nHead*c.headDim + 6 // rows need not be packed
			x := randFloats(rng, c.nTok*stride, 1)
			cs := make([]float32, c.nTok*c.nRot)
			want := append([]float32(nil), x...)
			for i := range c.nTok {
				kernels.RopeCache(cs[i*c.nRot:(i+1)*c.nRot], 17*i+3, &p)
				for h := range c.nHead {
					kernels.RopeApply(want[i*stride+h*c.headDim:i*stride+(h+1)*c.headDim], cs[i*c.nRot:(i+1)*c.nRot], c.nRot, neox)
				}
			}
			xb, cb := buffer(t, d, r, x, 0), buffer(t, d, r, cs, 0)
			run(t, r, func() { r.Rope(xb.All(), cb.All(), c.nTok, c.nHead, c.headDim, c.nRot, stride, neox) })
			checkNMSE(t, "rope", download(t, r, xb, len(x)), want, tolElementwise)
		}
	}
}

func TestSoftmax(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ rows, width int }{{1, 1}, {4, 100}, {3, 3000}} {
		x := randFloats(rng, c.rows*c.width, 4)
		xb := buffer(t, d, r, x, 0)
		run(t, r, func() { r.Softmax(xb.All(), c.rows, c.width) })
		want := append([]float32(nil), x...)
		for i := range c.rows {
			kernels.SoftMax(want[i*c.width : (i+1)*c.width])
		}
		checkNMSE(t, "softmax", download(t, r, xb, len(x)), want, tolElementwise)
	}
}

// TestActQuant checks the activation rounding of each vec-dot type against
// kernels.QuantizeRow followed by kernels.DequantizeRow: exactly, value for
// value, including ties and blocks of zeros.
func TestActQuant(t *testing.T) {
	d := device(t)
	r := recorder(t, d)
	rng := rand.New(rand.NewPCG(17, 18))
	const rows, cols = 5, 1024
	x := randFloats(rng, rows*cols, 3)
	for i := range 256 {
		x[512+i] = 0 // a zero block of every size
	}
	for i := 768; i < 800; i++ {
		x[i] = float32(i%5) * 0.5 // ties after scaling
	}
	x[1000] = 1e-6 // subnormal f16 scales
	xb, db := buffer(t, d, r, x, 0), buffer(t, d, r, nil, len(x))
	for _, vt := range []kernels.DType{kernels.Q8_0, kernels.Q8_1, kernels.Q8_K, kernels.F16, kernels.BF16} {
		run(t, r, func() { r.ActQuant(db.All(), xb.All(), rows, cols, vt) })
		got := download(t, r, db, len(x))
		q, want := make([]byte, vt.RowBytes(cols)), make([]float32, cols)
		for i := range rows {
			kernels.QuantizeRow(vt, q, x[i*cols:(i+1)*cols])
			dequantActs(vt, want, q)
			for j, w := range want {
				if g := got[i*cols+j]; g != w {
					t.Fatalf("%s row %d value %d: %v from %v, CPU %v", vt, i, j, g, x[i*cols+j], w)
				}
			}
		}
	}
}

// dequantActs expands a quantized activation row (the q8 types are not
// weight types, so kernels.DequantizeRow does not read them).
func dequantActs(t kernels.DType, dst []float32, q []byte) {
	switch t {
	case kernels.Q8_0, kernels.Q8_1:
		bs := t.RowBytes(32)
		for b := range len(dst) / 32 {
			blk := q[b*bs:]
			dd := kernels.F16ToF32(uint16(blk[0]) | uint16(blk[1])<<8)
			off := 2
			if t == kernels.Q8_1 {
				off = 4
			}
			for j := range 32 {
				dst[32*b+j] = dd * float32(int8(blk[off+j]))
			}
		}
	case kernels.Q8_K:
		bs := t.RowBytes(256)
		for b := range len(dst) / 256 {
			blk := q[b*bs:]
			dd := math.Float32frombits(uint32(blk[0]) | uint32(blk[1])<<8 | uint32(blk[2])<<16 | uint32(blk[3])<<24)
			for j := range 256 {
				dst[256*b+j] = dd * float32(int8(blk[4+j]))
			}
		}
	default:
		kernels.DequantizeRow(t, dst, q)
	}
}

// TestReplay: a reusable recorder's recording, submitted again after its
// host-visible inputs changed, computes on the new inputs; a new Begin
// discards it. Transfers go through another recorder, as engine/vulkan
// does (an Upload or Download records too).
func TestReplay(t *testing.T) {
	d := device(t)
	r, xfer := recorder(t, d), recorder(t, d)
	r.Reusable()
	const n = 300
	a, err := d.NewBuffer(4*n, HostMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	rng := rand.New(rand.NewPCG(19, 20))
	bv := randFloats(rng, n, 1)
	b, out := buffer(t, d, xfer, bv, 0), buffer(t, d, xfer, nil, n)
	if r.Replayable() {
		t.Fatal("replayable before any recording")
	}
	copy(a.Floats(), randFloats(rng, n, 1))
	run(t, r, func() { r.Add(out.All(), a.All(), b.All(), n, n) })
	for range 3 {
		if !r.Replayable() {
			t.Fatal("not replayable after a recorded step")
		}
		copy(a.Floats(), randFloats(rng, n, 1))
		if err := r.Replay(); err != nil {
			t.Fatal(err)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = a.Floats()[i] + bv[i]
		}
		checkNMSE(t, "replayed add", download(t, xfer, out, n), want, tolElementwise)
	}
	if err := r.Begin(); err != nil {
		t.Fatal(err)
	}
	if r.Replayable() {
		t.Error("replayable while recording")
	}
	if err := r.Submit(); err != nil {
		t.Fatal(err)
	}
}
