package turbo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tolAttn bounds DotKey and AccumulateValue against decode-then-compute in
// float64, relative to the sum of the absolute terms: both are float32 sums
// of the same 128·groups products, rounded differently (N applied once per
// block versus per element), so they agree to a few float32 ulps of the term
// sum; 1e-5 is ~100 ulps, far below any quantisation effect (1e-2).
const tolAttn = 1e-5

func TestDotKeyMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, typ := range Types {
		for _, n := range []int{64, 80, 128, 256} {
			qr := make([]float32, PaddedLen(n))
			z := make([]float32, PaddedLen(n))
			for range 20 {
				q, k := gaussianRow(r, n), gaussianRow(r, n)
				for i := range k {
					k[i] *= 3
				}
				row := mustEncode(t, typ, k)
				RotateQuery(qr, q)
				got := float64(typ.DotKey(qr, row))
				if err := typ.DecodeRotated(z, row); err != nil {
					t.Fatal(err)
				}
				var want, terms float64
				for j := range z {
					want += float64(qr[j]) * float64(z[j])
					terms += math.Abs(float64(qr[j]) * float64(z[j]))
				}
				if math.Abs(got-want) > tolAttn*terms {
					t.Fatalf("%s n=%d: DotKey %g, decode-then-dot %g", typ, n, got, want)
				}
				// The same score in the original domain: q · Decode(row).
				orig := dot64(q, mustDecode(t, typ, row, n))
				if math.Abs(got-orig) > tolAttn*norm64(q)*norm64(z)*math.Sqrt(float64(len(z))) {
					t.Fatalf("%s n=%d: DotKey %g, q·Decode %g", typ, n, got, orig)
				}
			}
		}
	}
}

func TestAccumulateValueMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, typ := range Types {
		for _, n := range []int{64, 80, 128, 256} {
			pn := PaddedLen(n)
			acc := make([]float32, pn)
			want := make([]float64, pn)
			terms := make([]float64, pn)
			z := make([]float32, pn)
			for i := range acc {
				acc[i] = float32(r.NormFloat64())
				want[i], terms[i] = float64(acc[i]), math.Abs(float64(acc[i]))
			}
			for range 16 {
				row := mustEncode(t, typ, gaussianRow(r, n))
				p := float32(r.Float64())
				typ.AccumulateValue(acc, p, row)
				if err := typ.DecodeRotated(z, row); err != nil {
					t.Fatal(err)
				}
				for j := range z {
					want[j] += float64(p) * float64(z[j])
					terms[j] += math.Abs(float64(p) * float64(z[j]))
				}
			}
			for j := range acc {
				if math.Abs(float64(acc[j])-want[j]) > tolAttn*terms[j] {
					t.Fatalf("%s n=%d: acc[%d] = %g, decode-then-axpy %g", typ, n, j, acc[j], want[j])
				}
			}
		}
	}
}

// TestAttentionEndToEnd runs one head of attention through the rotated-domain
// API (RotateQuery, DotKey, softmax, AccumulateValue, UnrotateOutput) and
// compares it with float64 attention over the decoded keys and values in the
// original domain: the two compute the same thing, so they agree to float32
// rounding, whatever the quantisation error.
func TestAttentionEndToEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	const nKeys = 24
	for _, typ := range Types {
		for _, n := range []int{64, 80, 128, 256} {
			q := gaussianRow(r, n)
			keys, vals := make([][]byte, nKeys), make([][]byte, nKeys)
			scores := make([]float64, nKeys)
			qr := make([]float32, PaddedLen(n))
			RotateQuery(qr, q)
			ref := make([]float64, n)
			refScores := make([]float64, nKeys)
			var vNorm float64
			for i := range keys {
				keys[i] = mustEncode(t, typ, gaussianRow(r, n))
				vals[i] = mustEncode(t, typ, gaussianRow(r, n))
				scores[i] = float64(typ.DotKey(qr, keys[i])) / math.Sqrt(float64(n))
				refScores[i] = dot64(q, mustDecode(t, typ, keys[i], n)) / math.Sqrt(float64(n))
			}
			p, pRef := softmax64(scores), softmax64(refScores)
			acc := make([]float32, PaddedLen(n))
			for i := range vals {
				typ.AccumulateValue(acc, float32(p[i]), vals[i])
				v := mustDecode(t, typ, vals[i], n)
				vNorm = max(vNorm, norm64(v))
				for j := range ref {
					ref[j] += pRef[i] * float64(v[j])
				}
			}
			out := make([]float32, n)
			UnrotateOutput(out, acc)
			for j := range out {
				if math.Abs(float64(out[j])-ref[j]) > 1e-5*vNorm {
					t.Fatalf("%s n=%d: out[%d] = %g, reference %g", typ, n, j, out[j], ref[j])
				}
			}
		}
	}
}

func softmax64(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	p := make([]float64, len(x))
	var s float64
	for i, v := range x {
		p[i] = math.Exp(v - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// TestAttnNoAlloc: the per-key and per-value helpers, and the per-head
// rotations, must not allocate (DESIGN.md §3: a warm decode step allocates
// nothing); Encode and Decode neither, so a KV write is allocation-free.
func TestAttnNoAlloc(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, typ := range Types {
		x := gaussianRow(r, 256)
		row := mustEncode(t, typ, x)
		qr := make([]float32, 256)
		acc := make([]float32, 256)
		out := make([]float32, 256)
		var sink float32
		for name, f := range map[string]func(){
			"DotKey":          func() { sink += typ.DotKey(qr, row) },
			"AccumulateValue": func() { typ.AccumulateValue(acc, 0.5, row) },
			"RotateQuery":     func() { RotateQuery(qr, x) },
			"UnrotateOutput":  func() { UnrotateOutput(out, acc) },
			"Encode":          func() { _ = typ.Encode(row, x) },
			"Decode":          func() { _ = typ.Decode(out, row) },
		} {
			if a := testing.AllocsPerRun(20, f); a != 0 {
				t.Errorf("%s.%s allocates %v times per call", typ, name, a)
			}
		}
		_ = sink
	}
}

func TestAttnPanicsOnBadLength(t *testing.T) {
	for _, typ := range Types {
		for name, f := range map[string]func(){
			"DotKey short row":     func() { typ.DotKey(make([]float32, 128), make([]byte, typ.BlockBytes()-1)) },
			"DotKey unpadded q":    func() { typ.DotKey(make([]float32, 80), make([]byte, typ.BlockBytes())) },
			"AccumulateValue long": func() { typ.AccumulateValue(make([]float32, 128), 1, make([]byte, 2*typ.BlockBytes())) },
			"invalid type":         func() { Type(3).DotKey(make([]float32, 128), make([]byte, 50)) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: %s did not panic", typ, name)
					}
				}()
				f()
			}()
		}
	}
}

func TestTCQValueAlpha(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		nKV  int
		want float64
	}{
		{Turbo3TCQ, 1, 1.06}, // 1.1484 clamped
		{Turbo3TCQ, 2048, 1.1484 - 0.01443*math.Log(2048)},   // 1.0384
		{Turbo3TCQ, 1 << 30, 0.98},                           // clamped below
		{Turbo2TCQ, 1, 1.00},                                 // 0.8865 clamped
		{Turbo2TCQ, 2048, 0.8865 + 0.0195*math.Log(2048)},    // 1.0352
		{Turbo2TCQ, 1 << 30, 1.12},                           // clamped above
		{Turbo3, 2048, 1}, {Turbo4, 5, 1}, {Turbo2TCQ, 0, 1}, // scalar types; n < 1 reads as 1
	} {
		if got := TCQValueAlpha(c.typ, c.nKV); math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("TCQValueAlpha(%s, %d) = %g, want %g", c.typ, c.nKV, got, c.want)
		}
	}
}
