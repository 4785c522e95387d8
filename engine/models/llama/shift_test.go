package llama_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/demomodel"
	"github.com/waggle-llm/waggle/kvcache"
)

// oneLayerDemo is the demo network cut to its first block. With one
// attention layer a token's key and value depend only on the token and
// its position, not on the tokens before it, so after a context shift the
// cache must hold what a fresh run over the surviving tokens at their new
// positions computes, and the next token's logits must agree.
func oneLayerDemo(t testing.TB) *engine.Loaded {
	t.Helper()
	b, err := demomodel.Build()
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	w := gguf.NewWriter(32)
	for _, kv := range f.KVs {
		if kv.Key == "llama.block_count" {
			kv.Value = gguf.Uint32Value(1)
		}
		w.AddKV(kv.Key, kv.Value)
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		if strings.HasPrefix(ti.Name, "blk.") && !strings.HasPrefix(ti.Name, "blk.0.") {
			continue
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, f.TensorData(ti)); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if _, err := w.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// relDiff is max|a-b| / max|b|.
func relDiff(a, b []float32) float64 {
	var d, m float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
		m = math.Max(m, math.Abs(float64(b[i])))
	}
	return d / m
}

func shiftTokens(n int) []int32 {
	toks := make([]int32, n)
	for i := range toks {
		toks[i] = int32(260 + (i*37)%130)
	}
	toks[0] = 1 // BOS
	return toks
}

// TestShiftMatchesFreshRun: 200 tokens, keep 5, drop 97; the next token's
// logits after the shift equal a fresh run over the 103 surviving tokens
// at positions 0..102 within 1e-5 (f32 cache: only the RoPE angles round
// differently) or 1e-3 (f16 cache: one more f16 rounding of each key),
// relative to the largest logit. The bounds hold with margin on this
// network (the test logs the measured values) and fail loudly for a shift
// that forgets to re-rotate (the logits then differ by O(1)).
func TestShiftMatchesFreshRun(t *testing.T) {
	l := oneLayerDemo(t)
	const n, keep, drop = 200, 5, 97
	toks := shiftTokens(n + 1)
	next := toks[n]
	for _, tc := range []struct {
		typ kvcache.Type
		tol float64
	}{{kvcache.F32, 1e-5}, {kvcache.F16, 1e-3}} {
		o := engine.SessionOptions{NCtx: 256, TypeK: tc.typ, TypeV: tc.typ}
		shifted := demoSession(t, l, o)
		decodeAll(t, shifted, 0, toks[:n], 0)
		if err := shifted.(engine.Shifter).Shift(0, keep, drop); err != nil {
			t.Fatal(err)
		}
		if got := shifted.SeqLen(0); got != n-drop {
			t.Fatalf("length after shift %d, want %d", got, n-drop)
		}
		decodeAll(t, shifted, 0, []int32{next}, n-drop)

		fresh := demoSession(t, l, o)
		surviving := append(append([]int32(nil), toks[:keep]...), toks[keep+drop:n]...)
		decodeAll(t, fresh, 0, append(surviving, next), 0)
		want := fresh.Logits(len(surviving))
		d := relDiff(shifted.Logits(0), want)
		t.Logf("%s cache: relative logit difference %.2g (bound %g)", tc.typ, d, tc.tol)
		if d > tc.tol {
			t.Fatalf("%s cache: logits after shift differ from a fresh run by %.3g relative (bound %g)", tc.typ, d, tc.tol)
		}

		// Without the re-rotation the keys sit at the wrong positions.
		unrotated := demoSession(t, l, o)
		decodeAll(t, unrotated, 0, toks[:n], 0)
		c := unrotated.Cache()
		for p := keep; p < n-drop; p++ {
			copy(c.KeyRow(0, 0, p), c.KeyRow(0, 0, p+drop))
			copy(c.ValueRow(0, 0, p), c.ValueRow(0, 0, p+drop))
		}
		if err := unrotated.Truncate(0, n-drop); err != nil {
			t.Fatal(err)
		}
		decodeAll(t, unrotated, 0, []int32{next}, n-drop)
		if d := relDiff(unrotated.Logits(0), want); d < 100*tc.tol {
			t.Fatalf("the test cannot tell a missing re-rotation (difference %.2g)", d)
		}
	}
}

// TestShiftTwoLayers: on the full demo network the first layer's keys
// after a shift match a fresh run's (its keys depend only on token and
// position), values move unchanged, and a forked sequence that shared the
// pages is not disturbed.
func TestShiftTwoLayers(t *testing.T) {
	l := demo(t)
	const n, keep, drop = 150, 1, 74
	toks := shiftTokens(n)
	o := engine.SessionOptions{NCtx: 160, NSeq: 2, TypeK: kvcache.F32, TypeV: kvcache.F32}
	s := demoSession(t, l, o)
	decodeAll(t, s, 0, toks, 0)
	if err := s.Fork(0, 1, n); err != nil {
		t.Fatal(err)
	}
	c := s.Cache()
	before := append([]byte(nil), c.KeyRow(1, 1, n-1)...)
	valueBefore := append([]byte(nil), c.ValueRow(1, 0, keep+drop+3)...)
	if err := s.(engine.Shifter).Shift(0, keep, drop); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.KeyRow(1, 1, n-1), before) || s.SeqLen(1) != n {
		t.Fatal("the shift changed a forked sequence")
	}
	if !bytes.Equal(c.ValueRow(1, 0, keep+3), valueBefore) {
		t.Fatal("values must move unchanged")
	}
	fresh := demoSession(t, l, o)
	decodeAll(t, fresh, 0, append(append([]int32(nil), toks[:keep]...), toks[keep+drop:]...), 0)
	fc := fresh.Cache()
	for p := range n - drop {
		a, b := f32Row(c.KeyRow(0, 0, p)), f32Row(fc.KeyRow(0, 0, p))
		if d := relDiff(a, b); d > 1e-5 {
			t.Fatalf("layer 0 key at new position %d differs by %.3g relative", p, d)
		}
	}
}

func f32Row(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return out
}

// TestShiftArguments: bad arguments are refused and change nothing; drop
// 0 is a no-op.
func TestShiftArguments(t *testing.T) {
	l := demo(t)
	s := demoSession(t, l, engine.SessionOptions{TypeK: kvcache.F16, TypeV: kvcache.F16})
	decodeAll(t, s, 0, prompt, 0)
	sh := s.(engine.Shifter)
	for _, a := range [][3]int{{1, 0, 1}, {0, -1, 2}, {0, 2, -1}, {0, 5, 4}, {0, 0, 9}} {
		if err := sh.Shift(a[0], a[1], a[2]); err == nil {
			t.Fatalf("Shift%v accepted", a)
		}
		if s.SeqLen(0) != len(prompt) {
			t.Fatalf("a refused Shift%v changed the sequence", a)
		}
	}
	if err := sh.Shift(0, 3, 0); err != nil || s.SeqLen(0) != len(prompt) {
		t.Fatalf("drop 0: %v, length %d", err, s.SeqLen(0))
	}
	if err := sh.Shift(0, 0, len(prompt)); err != nil || s.SeqLen(0) != 0 {
		t.Fatalf("drop all: %v, length %d", err, s.SeqLen(0))
	}
}

// TestShiftQuantizedKeys: for quantized and turbo key caches the shift
// decodes, rotates and re-encodes each key, so it adds one more
// quantization of the moved keys. On the one-layer network the next
// token's logits after a shift differ from a fresh run with the same cache
// type by at most 3× the type's own error (a fresh run with that key type
// against one with f32 keys) plus 1e-4, and, where the type's own error
// is under 1/4 of what a shift without re-rotation does, by under 1/3 of
// that; the test logs the values.
func TestShiftQuantizedKeys(t *testing.T) {
	l := oneLayerDemo(t)
	const n, keep, drop = 120, 3, 58
	toks := shiftTokens(n + 1)
	next := toks[n]
	surviving := append(append([]int32(nil), toks[:keep]...), toks[keep+drop:n]...)
	freshLogits := func(o engine.SessionOptions) []float32 {
		s := demoSession(t, l, o)
		decodeAll(t, s, 0, append(append([]int32(nil), surviving...), next), 0)
		return copyRow(s.Logits(len(surviving)))
	}
	exact := freshLogits(engine.SessionOptions{NCtx: 128, TypeK: kvcache.F32, TypeV: kvcache.F32})
	for _, name := range []string{"bf16", "turbo4", "turbo3", "turbo3_tcq", "turbo2", "turbo2_tcq"} {
		typ, err := kvcache.ParseType(name)
		if err != nil {
			t.Fatal(err)
		}
		o := engine.SessionOptions{NCtx: 128, TypeK: typ, TypeV: kvcache.F32}
		want := freshLogits(o)
		own := relDiff(want, exact)
		run := func(rotate bool) float64 {
			s := demoSession(t, l, o)
			decodeAll(t, s, 0, toks[:n], 0)
			if rotate {
				if err := s.(engine.Shifter).Shift(0, keep, drop); err != nil {
					t.Fatal(err)
				}
			} else {
				c := s.Cache()
				for p := keep; p < n-drop; p++ {
					copy(c.KeyRow(0, 0, p), c.KeyRow(0, 0, p+drop))
					copy(c.ValueRow(0, 0, p), c.ValueRow(0, 0, p+drop))
				}
				if err := s.Truncate(0, n-drop); err != nil {
					t.Fatal(err)
				}
			}
			decodeAll(t, s, 0, []int32{next}, n-drop)
			return relDiff(s.Logits(0), want)
		}
		d, control := run(true), run(false)
		t.Logf("%s keys: after shift %.2g, the type's own error %.2g, without re-rotation %.2g", name, d, own, control)
		// The control only discriminates when the type's noise is well
		// below the misplacement error (not for turbo2 on this network).
		if d > 3*own+1e-4 || (4*own < control && d > control/3) {
			t.Fatalf("%s keys: logits after shift differ by %.3g (type's own error %.3g, no-rotation control %.3g)", name, d, own, control)
		}
	}
}
