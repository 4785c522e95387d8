// Package ngram holds llama.cpp's model-free n-gram drafters: ngram-simple
// (copy what followed the last occurrence of the current n-gram),
// ngram-map-k and ngram-map-k4v (a per-sequence index of n-grams with
// per-key adaptive draft lengths, k4v voting among up to four recorded
// continuations) and ngram-mod (one hash pool of successor tokens shared by
// every sequence). They register with spec under those names.
package ngram

import "github.com/waggle-llm/waggle/spec"

func init() {
	spec.Register("ngram-simple", func(c *spec.Config) (spec.Strategy, error) { return NewSimple(c.NgramSimple), nil })
	spec.Register("ngram-map-k", func(c *spec.Config) (spec.Strategy, error) { return NewMap(c.NgramMapK, false), nil })
	spec.Register("ngram-map-k4v", func(c *spec.Config) (spec.Strategy, error) { return NewMap(c.NgramMapK4V, true), nil })
	spec.Register("ngram-mod", func(c *spec.Config) (spec.Strategy, error) { return NewMod(c.NgramMod), nil })
}

// equalAt reports whether ctx[a:a+n] == ctx[b:b+n] over the request's
// context (History followed by Last).
func equalAt(r *spec.Request, a, b, n int) bool {
	for i := range n {
		if r.Context(a+i) != r.Context(b+i) {
			return false
		}
	}
	return true
}
