package llama

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

var _ engine.Shifter = (*session)(nil)

// Shift implements engine.Shifter (llama.cpp's context shift: seq_rm of
// [keep, keep+drop) then seq_add of -drop to the rest, which re-ropes the
// keys).
//
// How: the rows of positions [keep+drop, n) of every layer are copied out
// (one allocation of (n-keep-drop) × layers × (key+value row) bytes; a
// shift happens once per half context, so this is not a per-token cost),
// the keys are decoded to float32, each head rotated by the RoPE of
// -drop, and encoded back; then the sequence is truncated to keep, given
// pages for n-drop positions (private copies where a fork shared them)
// and the rows are written at their new positions.
//
// Precision: rotating by -drop equals encoding at p-drop up to float32
// rounding of the angles (relative ~1e-7 of p·θ_i, the same order as
// RoPE's own float32 error at position p) and, for an f16 key cache, one
// more f16 rounding of the key (ggml re-ropes an f16 cache in f16 too).
// The YaRN magnitude scale is divided out of the rotation, so a shift
// rotates and never rescales (applying mscale twice would grow keys).
//
// Key types: every kvcache type. Keys are decoded with Type.DecodeRow,
// rotated, and encoded with Type.EncodeRow, so a quantized or turbo key
// gains one more quantization (for turbo: decode un-rotates the WHT,
// encode re-rotates and re-quantizes; a TCQ key re-runs the trellis
// search, ~0.1 ms per 128 values on the Go path).
func (s *session) Shift(seq, keep, drop int) error {
	if seq < 0 || seq >= s.opts.NSeq {
		return fmt.Errorf("llama: shift of sequence %d out of range [0, %d)", seq, s.opts.NSeq)
	}
	c := s.cache
	n := c.Len(seq)
	if keep < 0 || drop < 0 || keep+drop > n {
		return fmt.Errorf("llama: shift of sequence %d keeping %d and dropping %d positions, it holds %d", seq, keep, drop, n)
	}
	if drop == 0 {
		return nil
	}
	o := c.Options()
	rowK, rowV := len(c.KeyCells(0, 0, 1)), len(c.ValueCells(0, 0, 1))
	if want, err := o.TypeK.RowBytes(s.m.hp.nHeadKV, s.m.hp.headDim); err != nil || want != rowK {
		return fmt.Errorf("llama: context shift: %s key rows of %d bytes do not match the model's heads", o.TypeK, rowK)
	}
	moved := n - keep - drop
	row := rowK + rowV
	buf := make([]byte, moved*o.NLayer*row)
	for l := range o.NLayer {
		for i := range moved {
			b := buf[(l*moved+i)*row:]
			copy(b[:rowK], c.KeyRow(l, seq, keep+drop+i))
			copy(b[rowK:row], c.ValueRow(l, seq, keep+drop+i))
		}
	}
	s.rerotate(buf, moved*o.NLayer, row, rowK, drop)
	if err := c.Truncate(seq, keep); err != nil {
		return err
	}
	if err := c.Reserve(seq, keep+moved); err != nil {
		return fmt.Errorf("llama: context shift: sequence %d now holds its first %d positions: %w", seq, keep, err)
	}
	for l := range o.NLayer {
		for i := range moved {
			b := buf[(l*moved+i)*row:]
			copy(c.KeyRow(l, seq, keep+i), b[:rowK])
			copy(c.ValueRow(l, seq, keep+i), b[rowK:row])
		}
	}
	c.SetLen(seq, keep+moved)
	if s.gpu != nil {
		s.gpu.Invalidate(seq)
	}
	return nil
}

// rerotate rotates the key row at the start of each of the rows records
// (stride bytes apart, rowK bytes of key) by the RoPE of -delta positions.
func (s *session) rerotate(buf []byte, rows, stride, rowK, delta int) {
	hp := &s.m.hp
	kt := s.cache.Options().TypeK
	cs := make([]float32, hp.rope.NRot)
	kernels.RopeCache(cs, -delta, &hp.rope)
	for i := 0; i < len(cs); i += 2 {
		// Keep the angle, drop the magnitude scale (AttnFactor, YaRN mscale).
		if m := float32(math.Hypot(float64(cs[i]), float64(cs[i+1]))); m > 0 {
			cs[i], cs[i+1] = cs[i]/m, cs[i+1]/m
		}
	}
	nh, hd := hp.nHeadKV, hp.headDim
	f := make([]float32, nh*hd)
	for r := range rows {
		key := buf[r*stride : r*stride+rowK]
		kt.DecodeRow(f, key, nh, hd)
		for h := range nh {
			kernels.RopeApply(f[h*hd:(h+1)*hd], cs, hp.rope.NRot, s.m.v.neox)
		}
		kt.EncodeRow(key, f, nh, hd)
	}
}
