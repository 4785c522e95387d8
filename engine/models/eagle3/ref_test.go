package eagle3_test

import (
	"fmt"
	"math"
)

// ref is a float64 EAGLE-3 drafter written from docs/reference/eagle3.md
// §2 alone, over the weights of a synth: the tests hold the engine's
// drafter to it for every layout variant.
type ref struct {
	s          *synth
	embd, head [][]float32 // the embeddings and head in use (own or the target's), one row per token
	eps        float64
}

// fuse returns g = fc·x' for one fused input row x (3·D values).
func (r *ref) fuse(x []float32) []float64 {
	in := make([]float64, len(x))
	for i, v := range x {
		in[i] = float64(v)
	}
	switch {
	case r.s.normBeforeFC:
		in = rms(in, r.s.tensors["enc.output_norm.weight"].f32, r.eps)
	case r.s.fcNorm:
		for k := range 3 {
			copy(in[k*tD:(k+1)*tD], rms(in[k*tD:(k+1)*tD], r.s.tensors[fmt.Sprintf("fc_norm.%d.weight", k)].f32, r.eps))
		}
	}
	return matVec(r.s.tensors["fc.weight"], in)
}

// decode runs the block over pairs (tokens[p], gs[p]) at positions
// 0..n-1 and returns, per position, the logits over the head and the
// state fed back.
func (r *ref) decode(tokens []int32, gs [][]float64) (logits, next [][]float64) {
	s := r.s
	d, hd := s.d, s.headDim
	qd, kvd := s.nHead*hd, s.nHeadKV*hd
	var ks, vs [][]float64
	for p, tok := range tokens {
		e := make([]float64, d)
		for i, v := range r.embd[tok] {
			e[i] = float64(v)
		}
		en := rms(e, s.tensors["blk.0.attn_norm.weight"].f32, r.eps)
		gn := rms(gs[p], s.tensors["blk.0.attn_norm_2.weight"].f32, r.eps)
		u := append(append([]float64(nil), en...), gn...)
		q := r.rope(matVec(s.tensors["blk.0.attn_q.weight"], u), p)
		ks = append(ks, r.rope(matVec(s.tensors["blk.0.attn_k.weight"], u), p))
		vs = append(vs, matVec(s.tensors["blk.0.attn_v.weight"], u))
		att := make([]float64, qd)
		group := s.nHead / s.nHeadKV
		for h := range s.nHead {
			kh := h / group
			w := make([]float64, p+1)
			top := math.Inf(-1)
			for j := range w {
				for c := range hd {
					w[j] += q[h*hd+c] * ks[j][kh*hd+c]
				}
				w[j] /= math.Sqrt(float64(hd))
				top = math.Max(top, w[j])
			}
			sum := 0.0
			for j := range w {
				w[j] = math.Exp(w[j] - top)
				sum += w[j]
			}
			for j := range w {
				for c := range hd {
					att[h*hd+c] += w[j] / sum * vs[j][kh*hd+c]
				}
			}
		}
		_ = kvd
		res := gs[p]
		if s.normBeforeResidual {
			res = gn
		}
		x := add(matVec(s.tensors["blk.0.attn_output.weight"], att), res)
		xn := rms(x, s.tensors["blk.0.ffn_norm.weight"].f32, r.eps)
		gate, up := matVec(s.tensors["blk.0.ffn_gate.weight"], xn), matVec(s.tensors["blk.0.ffn_up.weight"], xn)
		for i := range gate {
			gate[i] = gate[i] / (1 + math.Exp(-gate[i])) * up[i]
		}
		h := add(matVec(s.tensors["blk.0.ffn_down.weight"], gate), x)
		hn := rms(h, s.tensors["output_norm.weight"].f32, r.eps)
		lg := make([]float64, len(r.head))
		for t, w := range r.head {
			for i := range hn {
				lg[t] += float64(w[i]) * hn[i]
			}
		}
		logits = append(logits, lg)
		if s.normOutput {
			next = append(next, hn)
		} else {
			next = append(next, h)
		}
	}
	return logits, next
}

// rope rotates adjacent pairs of every head of x at position p.
func (r *ref) rope(x []float64, p int) []float64 {
	hd := r.s.headDim
	var ff []float32
	if t := r.s.tensors["rope_freqs.weight"]; t != nil {
		ff = t.f32
	}
	for h := 0; h < len(x); h += hd {
		for i := 0; i < hd/2; i++ {
			theta := float64(p) * math.Pow(10000, -2*float64(i)/float64(hd))
			if ff != nil {
				theta /= float64(ff[i])
			}
			c, sn := math.Cos(theta), math.Sin(theta)
			a, b := x[h+2*i], x[h+2*i+1]
			x[h+2*i], x[h+2*i+1] = a*c-b*sn, a*sn+b*c
		}
	}
	return x
}

func rms(x []float64, w []float32, eps float64) []float64 {
	ss := 0.0
	for _, v := range x {
		ss += v * v
	}
	sc := 1 / math.Sqrt(ss/float64(len(x))+eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * sc * float64(w[i])
	}
	return out
}

// matVec multiplies a ggml {cols, rows} tensor by x.
func matVec(t *tensor, x []float64) []float64 {
	cols, rows := int(t.dims[0]), int(t.dims[1])
	out := make([]float64, rows)
	for r := range rows {
		w := t.f32[r*cols : (r+1)*cols]
		for c := range cols {
			out[r] += float64(w[c]) * x[c]
		}
	}
	return out
}

func add(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}
