package diffusion

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// hashDenoiser is a Denoiser whose logits are a hash of (position, token
// id, the canvas token there): deterministic, varied, and cheap, so the
// decoder's control flow can be fuzzed without a network.
type hashDenoiser struct {
	o      engine.DenoiserOptions
	prefix []int
	logits []float32
}

func (d *hashDenoiser) Options() engine.DenoiserOptions { return d.o }
func (d *hashDenoiser) Release(int)                     {}
func (d *hashDenoiser) SetPrefix(seq int, tokens []int32) error {
	d.prefix[seq] = len(tokens)
	return nil
}

func (d *hashDenoiser) Denoise(cs []engine.Canvas, visit func(k, i int, logits []float32)) error {
	for k, c := range cs {
		for i, t := range c.Tokens {
			if c.Need != nil && !c.Need[i] {
				continue
			}
			for v := range d.logits {
				h := uint32(d.prefix[c.Seq]+i)*2654435761 ^ uint32(v)*40503 ^ uint32(t)*97
				d.logits[v] = float32(h%1000)/100 - 5
			}
			visit(k, i, d.logits)
		}
	}
	return nil
}

// FuzzRun drives runs of any valid configuration to their end: no panic,
// a bounded number of forwards, everything committed, and no mask left
// where the decoder never proposes one (not so with Origin's coin flips,
// llama-diffusion-cli's short blocks, or its chain, which may sample the
// mask token).
func FuzzRun(f *testing.F) {
	f.Add(uint8(4), uint16(16), float32(0.001), uint16(0), int16(40), float32(0.95), float32(0.8), uint32(42), false, uint8(20), uint8(0))
	f.Add(uint8(0), uint16(24), float32(0), uint16(8), int16(1), float32(1), float32(0), uint32(1), false, uint8(30), uint8(1))
	f.Add(uint8(5), uint16(8), float32(0), uint16(4), int16(0), float32(1), float32(1.5), uint32(7), true, uint8(17), uint8(2))
	f.Add(uint8(5), uint16(16), float32(0), uint16(0), int16(0), float32(1), float32(0), uint32(9), false, uint8(40), uint8(3))
	f.Fuzz(func(t *testing.T, alg uint8, steps uint16, eps float32, block uint16, topK int16, topP, temp float32, seed uint32, greedy bool, canvas, mode uint8) {
		const nVocab = 37
		info := &engine.DiffusionInfo{MaskToken: nVocab - 1}
		if mode%4 == 3 {
			info = &engine.DiffusionInfo{MaskToken: -1, UniformNoise: true, CanvasLength: 8}
		}
		cfg := Config{Algorithm: Algorithm(alg % 7), Steps: int(steps % 200), Eps: eps, BlockLength: int(block % 70),
			CLIBlocks: mode%4 == 1, TopK: int(topK), TopP: topP, Temp: temp, Seed: seed, Greedy: greedy,
			Bound: 0.1, TMin: 0.4, TMax: 0.8, Stability: int(mode % 3), StopEntropy: 0.005, AddGumbelNoise: mode%5 == 4, ExcludeMask: mode&8 != 0}
		prompt := []int32{1, 2, 3}
		r, err := NewRun(info, nVocab, cfg, prompt, Options{Canvas: int(canvas%64) + 1})
		if err != nil {
			return // refused settings are fine; the point is no panic
		}
		d := &hashDenoiser{o: engine.DenoiserOptions{NSeq: 1, NCtx: 256}, prefix: make([]int, 1), logits: make([]float32, nVocab)}
		if err := Generate(d, r, 0, nil); err != nil {
			t.Fatal(err)
		}
		bound := len(r.blocks) * (max(r.steps, len(r.canvas)) + 1)
		if st := r.Stats(); st.Forwards > bound || len(r.Committed()) != len(r.canvas) {
			t.Fatalf("%+v: %d forwards (bound %d), %d of %d committed", cfg, st.Forwards, bound, len(r.Committed()), len(r.canvas))
		}
		if info.UniformNoise || cfg.Algorithm == Origin || cfg.CLIBlocks || !(cfg.ExcludeMask || cfg.Greedy || cfg.Algorithm == EntropyBound) {
			return // the CLI's own chain may write the mask token back
		}
		for p, tok := range r.Tokens() {
			if tok == info.MaskToken {
				t.Fatalf("%+v: position %d still masked", cfg, p)
			}
		}
	})
}
