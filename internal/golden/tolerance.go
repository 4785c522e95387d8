package golden

import "github.com/waggle-llm/waggle/gguf"

// Tolerance returns the max |Δlogit| allowed for a model whose tensors have
// these types, for an engine that rounds activations like ggml (the tight
// column of goldens/README.md): the loosest type present decides.
func Tolerance(f *gguf.File) float64 {
	tol := 1e-4
	for i := range f.Tensors {
		tol = max(tol, typeTolerance(f.Tensors[i].Type))
	}
	return tol
}

func typeTolerance(t gguf.Type) float64 {
	switch t {
	case gguf.TypeF32:
		return 1e-4
	case gguf.TypeF16:
		return 2e-2
	case gguf.TypeBF16:
		return 0.15
	default:
		return 0.5
	}
}

// F16CacheExtra is what an f16 KV cache adds to the tolerance (goldens
// README: "add about 2e-2 if the engine's KV cache is F16").
const F16CacheExtra = 2e-2
