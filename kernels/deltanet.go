package kernels

import (
	"fmt"
	"math"
)

// Gated DeltaNet kernels (Qwen3-Next / Qwen3.5 linear-attention layers).
//
// Layout: one head's recurrent state S (d_k × d_v, key index i, value index
// j) is stored value-row-major, s[j*dk+i] = S[i][j], the layout of ggml's
// gated_delta_net op. Every row j is then independent within a token (decay,
// dot with k, rank-one update, dot with q), so a SIMD implementation streams
// the state once per token, dk lanes at a time. All functions take flat
// []float32 slices, check lengths (panicking with "kernels:" on a programmer
// error, like every exported kernel) and never allocate; the Go versions
// here are the references an AVX2 / NEON implementation must match within
// the tolerances below.

// Test tolerances of the DeltaNet kernels, written once here so that a later
// assembly implementation is held to the same bar. "Normalized" as in
// doc.go: |got-want| over the sum of the absolute values of the terms that
// make up the result.
const (
	// tolDeltaStep bounds GatedDeltaStep (float32 arithmetic, products
	// rounded) against a float64 evaluation of the same recurrence over
	// 40 tokens: each output's error over the sum of the magnitudes of its
	// terms Σ_i|S_ij·q_i|, each state element's error over the largest
	// state magnitude. Measured worst case 4.7e-6 (a 1×1 head, where every
	// token's rounding lands on the one state value).
	tolDeltaStep = 2e-5

	// tolDeltaChunk bounds GatedDeltaChunk against GatedDeltaStep token by
	// token and against the float64 recurrence, each output's error over
	// the magnitudes of the terms the chunked form adds (|e^Γ·S0ᵀq| and
	// e^{Γt-Γu}|k_u·q_t|·|δ_u| over the chunk), the state as above. The
	// triangular solve carries each δ's rounding into the later ones, so
	// the two forms agree only to about 1e-5 typically and 2.8e-4 at worst
	// (128-wide heads, decay strong enough to reset the state every few
	// tokens) over the test's sweep; float64 dot accumulation does not
	// change that, the error is in the δ propagation. A wrong decay or an
	// off-by-one in the cumulative gates moves the result by >1e-1.
	tolDeltaChunk = 1e-3

	// tolDeltaElementwise bounds ConvSiLUStep, L2Norm and GatedRMSNorm
	// against float64 references, relative per element to the magnitude
	// of the terms.
	tolDeltaElementwise = 1e-6

	// tolDeltaOps bounds the chunked form's primitives (deltaDots,
	// deltaAxpys) of every implementation against their Go references,
	// per result over the sum of the magnitudes of its terms: fused
	// multiply-adds in eight- or four-lane partial sums against rounded
	// products summed in order, over up to 128 terms. Measured worst case
	// is below 1e-6.
	tolDeltaOps = 4e-6
)

// DeltaChunkSize is the number of tokens GatedDeltaChunk solves at once
// (ggml's chunked delta-net uses 64 as well): its triangular systems cost
// DeltaChunkSize²·(dk+dv)/2 per chunk against DeltaChunkSize·dk·dv for the
// state products, so 64 keeps them below the state work for dk = dv ≥ 64.
const DeltaChunkSize = 64

// GatedDeltaStep advances one head of the gated delta rule by one token and
// writes its output. In Go terms, with dk = len(k), dv = len(v):
//
//	for j := range dv {
//		row := s[j*dk : (j+1)*dk]          // column j of S
//		row *= decay                        // S ← exp(g)·S, decay = exp(g)
//		u := Σ_i row[i]·k[i]                // (Sᵀk)_j
//		d := beta·(v[j] - u)                // δ_j
//		row += d·k                          // S ← S + k·δᵀ
//		out[j] = Σ_i row[i]·q[i]            // o = Sᵀq
//	}
//
// Products are rounded to float32 before each addition, sums run in index
// order in float32 (as ggml's scalar path rounds per step). The assembly
// paths (dk a multiple of 8 under any assembly implementation: AVX2 in
// deltanet_amd64.s, 16-lane AVX-512 under avx512 when dk is a multiple of
// 16, NEON in deltanet_arm64.s) keep the rounded products and only sum
// them in lanes, within tolDeltaStep. q is expected already L2-normalised and scaled by
// 1/sqrt(dk), k L2-normalised.
//
// Preconditions (panics otherwise): len(q) == len(k) == dk > 0,
// len(out) == len(v) == dv > 0, len(s) == dk*dv. out must not alias s, q,
// k or v.
func GatedDeltaStep(s, q, k, v, out []float32, decay, beta float32) {
	dk, dv := len(k), len(v)
	if dk == 0 || dv == 0 || len(q) != dk || len(out) != dv || len(s) != dk*dv {
		panic(fmt.Sprintf("kernels: GatedDeltaStep lengths s=%d q=%d k=%d v=%d out=%d", len(s), len(q), dk, dv, len(out)))
	}
	gatedDeltaStepImpl(s, q, k, v, out, decay, beta)
}

func gatedDeltaStepGeneric(s, q, k, v, out []float32, decay, beta float32) {
	dk := len(k)
	q = q[:dk]
	for j := range out {
		row := s[j*dk : (j+1)*dk : (j+1)*dk]
		var u float32
		for i := range row {
			x := row[i] * decay
			row[i] = x
			u += float32(x * k[i])
		}
		d := beta * (v[j] - u)
		var o float32
		for i := range row {
			x := row[i] + float32(d*k[i])
			row[i] = x
			o += float32(x * q[i])
		}
		out[j] = o
	}
}

// GatedDeltaUpdate advances one head's state s exactly as GatedDeltaStep
// does and computes no output: the same decay, δ and rank-one update, the
// same float32 operations in the same order, so the state it leaves is
// bit-identical to GatedDeltaStep's on the same inputs. It exists for the
// speculative-rollback replay (engine/models/qwen35), which re-applies
// accepted tokens to a restored state and needs the state only; skipping
// the output dot saves a third of the step's arithmetic. An assembly
// GatedDeltaStep must come with an assembly GatedDeltaUpdate that reorders
// its sums the same way (the replay relies on equality, not tolerance);
// TestGatedDeltaUpdateEqualsStep holds every implementation to it.
//
// Preconditions (panics otherwise): len(k) == dk > 0, len(v) == dv > 0,
// len(s) == dk*dv.
func GatedDeltaUpdate(s, k, v []float32, decay, beta float32) {
	dk, dv := len(k), len(v)
	if dk == 0 || dv == 0 || len(s) != dk*dv {
		panic(fmt.Sprintf("kernels: GatedDeltaUpdate lengths s=%d k=%d v=%d", len(s), dk, dv))
	}
	gatedDeltaUpdateImpl(s, k, v, decay, beta)
}

func gatedDeltaUpdateGeneric(s, k, v []float32, decay, beta float32) {
	dk := len(k)
	for j := range v {
		row := s[j*dk : (j+1)*dk : (j+1)*dk]
		var u float32
		for i := range row {
			x := row[i] * decay
			row[i] = x
			u += float32(x * k[i])
		}
		d := beta * (v[j] - u)
		for i := range row {
			row[i] += float32(d * k[i])
		}
	}
}

// ConvSiLUStep is one token of the short causal convolution of a Gated
// DeltaNet layer followed by SiLU, per channel c of C = len(x):
//
//	out[c] = SiLU(Σ_{j<K} w[j*C+c] · win_j[c])
//
// where win_0..win_{K-2} are the K-1 previous inputs held in state (rows of
// C, oldest first) and win_{K-1} = x. Products are rounded and summed
// oldest first in float32, as ggml_ssm_conv does; then state drops its
// oldest row and appends x. The weights are tap-major (w[j*C+c], the
// transpose of the GGUF's ssm_conv1d {K, C}), so every tap is one
// contiguous vector across channels, the shape an AVX2/NEON loop wants.
// Under an assembly implementation, with C a multiple of 8, the taps run
// in assembly bit for bit as here and SiLU runs through the selected
// SwiGLU kernel (polynomial exp, within tolDeltaElementwise).
//
// Preconditions (panics otherwise): K >= 1, len(out) == len(x) == C > 0,
// len(w) == K*C, len(state) == (K-1)*C. out must not alias x or state.
func ConvSiLUStep(out, state, x, w []float32, kTaps int) {
	c := len(x)
	if kTaps < 1 || c == 0 || len(out) != c || len(w) != kTaps*c || len(state) != (kTaps-1)*c {
		panic(fmt.Sprintf("kernels: ConvSiLUStep K=%d lengths out=%d state=%d x=%d w=%d", kTaps, len(out), len(state), c, len(w)))
	}
	convSiLUStepImpl(out, state, x, w, kTaps)
}

func convSiLUStepGeneric(out, state, x, w []float32, kTaps int) {
	c := len(x)
	for ch := range out {
		var sum float32
		for j := range kTaps - 1 {
			sum += float32(w[j*c+ch] * state[j*c+ch])
		}
		sum += float32(w[(kTaps-1)*c+ch] * x[ch])
		out[ch] = SiLU(sum)
	}
	if kTaps > 1 {
		copy(state, state[c:])
		copy(state[(kTaps-2)*c:], x)
	}
}

// L2Norm sets dst = x / max(‖x‖₂, eps) like ggml_l2_norm: the float32
// squares are summed in float64, and scale = 1/max(sqrtf(sum), eps) is
// applied in float32. The AVX2 and NEON paths (RMSNorm's sum-of-squares
// and scaling loops) differ from the Go loop only in the order of the
// float64 additions. Preconditions (panics otherwise): len(dst) == len(x)
// > 0, eps >= 0. dst may alias x.
func L2Norm(dst, x []float32, eps float32) {
	if len(dst) != len(x) || len(x) == 0 || !(eps >= 0) {
		panic(fmt.Sprintf("kernels: L2Norm lengths dst=%d x=%d eps=%v", len(dst), len(x), eps))
	}
	l2NormImpl(dst, x, eps)
}

func l2NormGeneric(dst, x []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	scale := l2NormScale(sum, eps)
	for i, v := range x {
		dst[i] = v * scale
	}
}

// l2NormScale is L2Norm's scale from the float64 sum of squares, one
// rounding path for every implementation.
func l2NormScale(sum float64, eps float32) float32 {
	return 1 / max(float32(math.Sqrt(sum)), eps)
}

// GatedRMSNorm sets dst = RMSNorm(x)·w·SiLU(z), the output norm of a Gated
// DeltaNet head: the RMS scale as RMSNorm computes it (float32 squares
// summed in float64), then ((x·scale)·w)·SiLU(z) rounded in that order, as
// ggml's rms_norm, mul, mul sequence does. Qwen stores this weight
// (ssm_norm) without the +1 its other norms carry; that is the caller's
// concern, the kernel uses w as given.
//
// It runs as RMSNorm, Mul and SwiGLU(gate z, up) of the selected
// implementation, whose roundings are those of the sequence above, so the
// generic selection is bit-identical to gatedRMSNormGeneric and the AVX2
// and NEON ones inherit those kernels' tolerances (polynomial exp in SiLU,
// float64 sum order). When dst aliases z (z would be overwritten before
// it is read) it runs gatedRMSNormGeneric.
//
// Preconditions (panics otherwise): len(dst) == len(x) == len(w) == len(z)
// > 0, eps >= 0. dst may alias x or z.
func GatedRMSNorm(dst, x, w, z []float32, eps float32) {
	n := len(x)
	if n == 0 || len(dst) != n || len(w) != n || len(z) != n || !(eps >= 0) {
		panic(fmt.Sprintf("kernels: GatedRMSNorm lengths dst=%d x=%d w=%d z=%d eps=%v", len(dst), n, len(w), len(z), eps))
	}
	if &dst[0] == &z[0] {
		gatedRMSNormGeneric(dst, x, w, z, eps)
		return
	}
	active.rmsNorm(dst, x, eps)
	active.mul(dst, dst, w)
	active.swiGLU(dst, z, dst)
}

func gatedRMSNormGeneric(dst, x, w, z []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	mean := float32(sum / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	for i, v := range x {
		dst[i] = float32(v*scale*w[i]) * SiLU(z[i])
	}
}
