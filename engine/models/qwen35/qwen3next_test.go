package qwen35

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestQwen3NextLayout checks the qwen3next path (grouped V-head pairing and
// the fused ssm_ba projection) without a qwen3next fixture: it rewrites the
// loaded synth-qwen35moe-spm-f32 into the order a qwen3next GGUF keeps (HF
// order: value head kh·r+j belongs to key head kh, where the qwen35 file
// stores it at j·H_k+kh) and fuses beta and alpha per key-head group as
// [b(r) | a(r)], then runs it with the qwen3next variant. The network is the
// same, so the logits must match those of the original model to float
// rounding (only ssm_out's summation order changes, which these random
// networks amplify to 5.5e-5 measured; bound 1e-4) and the goldens within
// 1.5e-4 (the original is 9e-5 from them). With the pairing rule left tiled the rewritten model
// must fail, so the test can tell.
func TestQwen3NextLayout(t *testing.T) {
	stem := "synth-qwen35moe-spm-f32"
	g, err := golden.Load(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json")))
	if err != nil {
		t.Fatal(err)
	}
	orig := loadModelT(t, stem)
	var want [][]float32
	for _, c := range g.Cases {
		want = append(want, batchLogits(t, orig, c.Tokens)...)
	}
	for _, grouped := range []bool{true, false} {
		l, err := engine.LoadFile(testenv.Model(t, stem+".gguf"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		m := l.Model.(*Model)
		toQwen3Next(t, m)
		m.v.groupedHeads = grouped
		worst, vsOrig := 0.0, 0.0
		var got [][]float32
		for _, c := range g.Cases {
			worst = max(worst, maxGoldenDiff(t, m, &c))
			got = append(got, batchLogits(t, m, c.Tokens)...)
		}
		for i := range got {
			for j := range got[i] {
				vsOrig = max(vsOrig, math.Abs(float64(got[i][j]-want[i][j])))
			}
		}
		t.Logf("grouped pairing %v: max |Δlogit| vs llama.cpp %.3g, vs the qwen35 layout %.3g", grouped, worst, vsOrig)
		if grouped && (worst > 1.5e-4 || vsOrig > 1e-4) {
			t.Errorf("the qwen3next layout of the same network is %.3g from the golden, %.3g from the qwen35 layout", worst, vsOrig)
		}
		if !grouped && worst < 0.5 {
			t.Errorf("tiled pairing on a qwen3next layout is only %.3g off; the test cannot tell the rules apart", worst)
		}
	}
}

// toQwen3Next rewrites m's DeltaNet layers from qwen35 order to qwen3next
// order and switches it to the qwen3next variant.
func toQwen3Next(t *testing.T, m *Model) {
	hp := &m.hp
	r := hp.hv / hp.hk
	src := func(hg int) int { return (hg%r)*hp.hk + hg/r } // qwen3next head → qwen35 head
	m.v = variantQwen3Next
	for _, l := range m.layers {
		d := l.delta
		if d == nil {
			continue
		}
		vOff := 2 * hp.hk * hp.dk
		d.wqkv = permuteRows(t, d.wqkv, func(row int) int {
			if row < vOff {
				return row
			}
			h, j := (row-vOff)/hp.dv, (row-vOff)%hp.dv
			return vOff + src(h)*hp.dv + j
		})
		d.wz = permuteRows(t, d.wz, func(row int) int { return src(row/hp.dv)*hp.dv + row%hp.dv })
		d.wBA = fuseBA(t, d.wBeta, d.wA, hp.hk, r, src)
		d.wBeta, d.wA = nil, nil
		d.ssmA = permuteVec(d.ssmA, src)
		d.dtB = permuteVec(d.dtB, src)
		conv := slices.Clone(d.convW)
		for tap := range hp.convK {
			for c := vOff; c < hp.convDim; c++ {
				h, j := (c-vOff)/hp.dv, (c-vOff)%hp.dv
				conv[tap*hp.convDim+c] = d.convW[tap*hp.convDim+vOff+src(h)*hp.dv+j]
			}
		}
		d.convW = conv
		d.wOut = permuteCols(t, d.wOut, func(col int) int { return src(col/hp.dv)*hp.dv + col%hp.dv })
	}
}

func f32Rows(t *testing.T, w *engine.Matrix) []float32 {
	if w.Type != kernels.F32 {
		t.Fatalf("%s is %v; the layout rewrite handles F32 only", w.Name, w.Type)
	}
	out := make([]float32, w.Rows*w.Cols)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(w.Data[4*i:]))
	}
	return out
}

func f32Matrix(w *engine.Matrix, rows int, vals []float32) *engine.Matrix {
	data := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	return &engine.Matrix{Name: w.Name, Type: kernels.F32, Rows: rows, Cols: w.Cols, Data: data}
}

// permuteRows returns a copy whose row i is w's row from(i).
func permuteRows(t *testing.T, w *engine.Matrix, from func(int) int) *engine.Matrix {
	v, c := f32Rows(t, w), w.Cols
	out := make([]float32, len(v))
	for i := range w.Rows {
		copy(out[i*c:(i+1)*c], v[from(i)*c:(from(i)+1)*c])
	}
	return f32Matrix(w, w.Rows, out)
}

// permuteCols returns a copy whose column j is w's column from(j).
func permuteCols(t *testing.T, w *engine.Matrix, from func(int) int) *engine.Matrix {
	v, c := f32Rows(t, w), w.Cols
	out := make([]float32, len(v))
	for i := range w.Rows {
		for j := range c {
			out[i*c+j] = v[i*c+from(j)]
		}
	}
	return f32Matrix(w, w.Rows, out)
}

// fuseBA builds ssm_ba: for key-head group kh, rows [b of heads kh·r+j |
// a of the same heads], from qwen35-order beta and alpha.
func fuseBA(t *testing.T, beta, alpha *engine.Matrix, hk, r int, src func(int) int) *engine.Matrix {
	b, a, c := f32Rows(t, beta), f32Rows(t, alpha), beta.Cols
	out := make([]float32, 2*hk*r*c)
	for kh := range hk {
		for j := range r {
			h := src(kh*r + j)
			copy(out[(2*kh*r+j)*c:], b[h*c:(h+1)*c])
			copy(out[(2*kh*r+r+j)*c:], a[h*c:(h+1)*c])
		}
	}
	return f32Matrix(beta, 2*hk*r, out)
}

func permuteVec(v []float32, from func(int) int) []float32 {
	out := make([]float32, len(v))
	for i := range out {
		out[i] = v[from(i)]
	}
	return out
}

func loadModelT(t *testing.T, stem string) *Model {
	l, err := engine.LoadFile(testenv.Model(t, stem+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Model.(*Model)
}

// batchLogits decodes toks as one batch and returns a copy of every row.
func batchLogits(t *testing.T, m *Model, toks []int32) [][]float32 {
	s, err := m.NewSession(engine.SessionOptions{NCtx: 128, TypeK: kvcache.F32, TypeV: kvcache.F32})
	if err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range toks {
		b.Add(tok, int32(i), 0, true)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(toks))
	for i := range out {
		out[i] = slices.Clone(s.Logits(i))
	}
	return out
}
