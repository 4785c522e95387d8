package sample

import "math"

// Single-precision helpers matching the C library's expf/logf/powf to within
// their last-bit rounding: computing in double and rounding once gives the
// correctly rounded float, which glibc's float functions also return in all
// but the rarest inputs.

func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

func logf(x float32) float32 { return float32(math.Log(float64(x))) }

func powf(x, y float32) float32 { return float32(math.Pow(float64(x), float64(y))) }

var negInf = float32(math.Inf(-1))

func log2f(x float32) float32 { return float32(math.Log2(float64(x))) }
