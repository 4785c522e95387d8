package kernels

import (
	"fmt"
	"math"
)

// RopeParams are the rotary-embedding parameters of ggml_rope_ext (and the
// YaRN extension) for one model.
type RopeParams struct {
	NRot        int       // rotated dimensions per head (n_dims); even, > 0
	FreqBase    float32   // theta base, e.g. 10000
	FreqScale   float32   // 1/(context scaling factor); 1 for none
	ExtFactor   float32   // YaRN extrapolation mix; 0 disables YaRN
	AttnFactor  float32   // magnitude scale applied to cos and sin (usually 1)
	BetaFast    float32   // YaRN low correction dim (e.g. 32)
	BetaSlow    float32   // YaRN high correction dim (e.g. 1)
	NCtxOrig    int       // training context length, for YaRN's correction dims
	FreqFactors []float32 // nil, or NRot/2 per-pair divisors of theta (llama3 rope_freqs)
}

// RopeCache fills cache[0:p.NRot] with the interleaved (cos, sin) pairs for
// position pos, like ggml_rope_cache_init with rope_yarn (forward rotation):
// for pair i (i0 = 2i), theta = pos * theta_scale^i with
// theta_scale = powf(FreqBase, -2/NRot), built by repeated float32
// multiplication as ggml does, then divided by FreqFactors[i] when given;
// the YaRN mix of interpolated (theta*FreqScale) and extrapolated theta and
// the magnitude scale follow rope_yarn with ggml_rope_yarn_corr_dims.
// cache[2i] = cos(theta')*mscale, cache[2i+1] = sin(theta')*mscale.
//
// Preconditions (panics otherwise): NRot even and > 0, len(cache) >= NRot,
// FreqFactors nil or len >= NRot/2.
func RopeCache(cache []float32, pos int, p *RopeParams) {
	n := p.NRot
	if n <= 0 || n%2 != 0 || len(cache) < n {
		panic(fmt.Sprintf("kernels: RopeCache NRot=%d (must be even and > 0), len(cache)=%d", n, len(cache)))
	}
	if p.FreqFactors != nil && len(p.FreqFactors) < n/2 {
		panic(fmt.Sprintf("kernels: RopeCache has %d FreqFactors, needs %d", len(p.FreqFactors), n/2))
	}
	ropeCacheGeneric(cache[:n], pos, p)
}

// RopeYarnCorrDims returns ggml_rope_yarn_corr_dims: the first and last
// dimension over which YaRN ramps from extrapolation to interpolation.
func RopeYarnCorrDims(nDims, nCtxOrig int, freqBase, betaFast, betaSlow float32) (lo, hi float32) {
	lo = float32(math.Floor(float64(yarnCorrDim(nDims, nCtxOrig, betaFast, freqBase))))
	hi = float32(math.Ceil(float64(yarnCorrDim(nDims, nCtxOrig, betaSlow, freqBase))))
	return max(0, lo), min(float32(nDims-1), hi)
}

// yarnCorrDim is ggml_rope_yarn_corr_dim: the dimension at which a
// wavelength fits nRot rotations into nCtxOrig positions, in float32 steps:
// nDims * logf(nCtxOrig / (nRot*2*pi)) / (2*logf(base)).
func yarnCorrDim(nDims, nCtxOrig int, nRot, base float32) float32 {
	turns := nRot * 2 * float32(math.Pi)
	num := float32(nDims) * logf(float32(nCtxOrig)/turns)
	return num / (2 * logf(base))
}

func logf(x float32) float32 { return float32(math.Log(float64(x))) }

func ropeCacheGeneric(cache []float32, pos int, p *RopeParams) {
	n := p.NRot
	thetaScale := float32(math.Pow(float64(p.FreqBase), float64(-2/float32(n))))
	lo, hi := RopeYarnCorrDims(n, p.NCtxOrig, p.FreqBase, p.BetaFast, p.BetaSlow)
	mscale := p.AttnFactor
	if p.ExtFactor != 0 {
		mscale *= 1 + 0.1*logf(1/p.FreqScale)
	}
	theta := float32(pos)
	for i0 := 0; i0 < n; i0 += 2 {
		extrap := theta
		if p.FreqFactors != nil {
			extrap = theta / p.FreqFactors[i0/2]
		}
		t := p.FreqScale * extrap
		if p.ExtFactor != 0 {
			// rope_yarn_ramp: 1 below lo, 0 above hi, linear between.
			y := (float32(i0/2) - lo) / max(0.001, hi-lo)
			mix := (1 - min(1, max(0, y))) * p.ExtFactor
			t = float32(t*(1-mix)) + float32(extrap*mix)
		}
		cache[i0] = float32(math.Cos(float64(t))) * mscale
		cache[i0+1] = float32(math.Sin(float64(t))) * mscale
		theta *= thetaScale
	}
}

// RopeApply rotates one head x in place with a cache from RopeCache, like
// ggml's rotate_pairs. Normal mode (GGML_ROPE_TYPE_NORMAL, llama) rotates
// adjacent pairs (x[2i], x[2i+1]); neox mode (GGML_ROPE_TYPE_NEOX, qwen,
// gpt-neox) rotates (x[i], x[i+nRot/2]). Pair i uses cos = cache[2i],
// sin = cache[2i+1]: (a, b) -> (a*cos - b*sin, a*sin + b*cos). Values at
// index >= nRot are left untouched.
//
// Preconditions (panics otherwise): nRot even and > 0, len(x) >= nRot,
// len(cache) >= nRot.
func RopeApply(x []float32, cache []float32, nRot int, neox bool) {
	if nRot <= 0 || nRot%2 != 0 || len(x) < nRot || len(cache) < nRot {
		panic(fmt.Sprintf("kernels: RopeApply nRot=%d len(x)=%d len(cache)=%d", nRot, len(x), len(cache)))
	}
	ropeApplyGeneric(x[:nRot], cache[:nRot], neox)
}

func ropeApplyGeneric(x, cache []float32, neox bool) {
	n := len(x)
	stride, step := 1, 2 // normal: partner at +1, pair i starts at 2i
	if neox {
		stride, step = n/2, 1 // neox: partner at +n/2, pair i starts at i
	}
	for i0 := 0; i0 < n; i0 += 2 {
		c, s := cache[i0], cache[i0+1]
		j := i0 / 2 * step
		a, b := x[j], x[j+stride]
		x[j] = float32(a*c) - float32(b*s)
		x[j+stride] = float32(a*s) + float32(b*c)
	}
}
