package llama

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/waggle-llm/waggle/engine"
)

// GPU offload (engine/offload.go): with SessionOptions.GPULayers = N > 0
// the last N layers run on the registered backend and the first
// nLayer-N on the CPU, as llama.cpp's -ngl does; the token embedding always
// stays on the CPU. The session keeps its CPU KV cache for every layer (the
// backend writes the device's rows back into it after each step), so
// truncation, forks, context shift and state files work unchanged.

// decoderSpec describes the model for a backend.
func (m *Model) decoderSpec() *engine.DecoderSpec {
	hp := &m.hp
	spec := &engine.DecoderSpec{
		Arch: m.v.arch, NEmbd: hp.nEmbd, NHead: hp.nHead, NHeadKV: hp.nHeadKV, HeadDim: hp.headDim,
		NFF: hp.nFF, NVocab: hp.nVocab, Eps: hp.eps, NRot: hp.rope.NRot, Neox: m.v.neox,
		OutputNorm: m.outputNorm, Output: m.output, Layers: make([]engine.DecoderLayer, len(m.layers)),
	}
	for i := range m.layers {
		l := &m.layers[i]
		spec.Layers[i] = engine.DecoderLayer{
			AttnNorm: l.attnNorm, FFNNorm: l.ffnNorm, Wq: l.wq, Wk: l.wk, Wv: l.wv, Wo: l.wo,
			Bq: l.bq, Bk: l.bk, Bv: l.bv, QNorm: l.qNorm, KNorm: l.kNorm, Gate: l.gate, Up: l.up, Down: l.down,
		}
	}
	return spec
}

// startOffload hands the last opts.GPULayers layers to the backend.
func (s *session) startOffload() error {
	hp := &s.m.hp
	if s.m.v.moe {
		return fmt.Errorf("%s: GPU offload of mixture-of-experts layers is not supported; use -ngl 0", s.m.v.arch)
	}
	first := max(0, hp.nLayer-s.opts.GPULayers)
	for _, l := range s.opts.CaptureLayers {
		if l >= first {
			return fmt.Errorf("%s: hidden state of layer %d is captured, but layers %d.. run on the GPU; lower -ngl", s.m.v.arch, l, first)
		}
	}
	for _, t := range s.opts.Taps {
		if int(t) > first { // LayerInput(first) is the last CPU layer's output
			return fmt.Errorf("%s: a drafter reads the residual stream inside layers %d.., which run on the GPU; lower -ngl", s.m.v.arch, first)
		}
	}
	g, err := engine.NewOffload(s.m.decoderSpec(), s.opts, s.cache)
	if err != nil {
		return err
	}
	if g.FirstLayer() != first {
		g.Close()
		return fmt.Errorf("%s: the backend runs layers from %d, want %d", s.m.v.arch, g.FirstLayer(), first)
	}
	s.gpu, s.nCPU = g, first
	runtime.AddCleanup(s, func(g engine.Offload) { g.Close() }, g)
	return nil
}

// offloadForward runs the device's layers and, when the backend did not,
// the output head on the CPU.
func (s *session) offloadForward(b *engine.Batch) error {
	hp := &s.m.hp
	n := b.Len()
	s.logits = grow(s.logits, len(s.outIdx)*hp.nVocab)
	st := &s.step
	*st = engine.OffloadStep{Batch: b, X: s.x[:n*hp.nEmbd], Rope: s.rope[:n*hp.rope.NRot], Out: s.outIdx, Logits: s.logits, Cache: s.cache}
	head, err := s.gpu.Forward(st)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.m.v.arch, s.gpu.Name(), err)
	}
	if !head {
		s.outputHead(b)
	}
	return nil
}

// Backend names where the session computes ("CPU", or the backend's name
// with layers offloaded).
func (s *session) Backend() string {
	if s.gpu == nil {
		return "CPU"
	}
	return s.gpu.Name()
}

// Close releases the session's device resources (none on the CPU).
func (s *session) Close() error {
	if s.gpu == nil {
		return nil
	}
	g := s.gpu
	s.gpu, s.nCPU = nil, s.m.hp.nLayer
	return g.Close()
}

// wantsFinal reports whether the final normalised state is captured.
func (s *session) wantsFinal() bool { return slices.Contains(s.opts.CaptureLayers, -1) }
