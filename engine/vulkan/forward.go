//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
	vk "github.com/waggle-llm/waggle/kernels/vulkan"
)

// Forward runs one step (engine.Offload): it refreshes stale sequences'
// device rows, writes the step's tables, records every offloaded layer, the
// gather of the output rows and the head (or the copy of the output rows
// for the CPU's head) into one command buffer, submits it, and copies the
// new KV rows and the results back.
func (o *offload) Forward(st *engine.OffloadStep) (bool, error) {
	b, s := st.Batch, o.spec
	n, nOut := b.Len(), len(st.Out)
	if n > o.nb {
		return false, fmt.Errorf("vulkan: batch of %d tokens, the session holds %d", n, o.nb)
	}
	if err := o.kv.sync(o, st); err != nil {
		return false, err
	}
	o.writeTables(st)
	copy(o.host.xin.Floats(), st.X[:n*s.NEmbd])
	head := o.head && nOut <= o.logCap
	if err := o.run(stepShape{n, nOut, head}); err != nil {
		return false, err
	}
	o.kv.writeBack(o, st)
	if head {
		copy(st.Logits[:nOut*s.NVocab], o.host.logits.Floats())
		return true, nil
	}
	xo := o.host.xout.Floats()
	for k, i := range st.Out {
		copy(st.X[i*s.NEmbd:(i+1)*s.NEmbd], xo[k*s.NEmbd:(k+1)*s.NEmbd])
	}
	return false, nil
}

// stepShape is what a step's recording depends on; everything else (token
// ids, positions, cells, page tables, the input rows) is read from buffers.
type stepShape struct {
	n, nOut int
	head    bool
}

// run replays the last recording when the step has its shape (a decode
// step after a decode step), else records and submits the step.
func (o *offload) run(sh stepShape) error {
	r, s := o.r, o.spec
	if sh == o.last && r.Replayable() {
		return r.Replay()
	}
	o.last = stepShape{}
	if err := r.Begin(); err != nil {
		return err
	}
	r.Copy(o.dev.x.All(), o.host.xin.Region(0, uint64(4*sh.n*s.NEmbd)))
	r.Barrier()
	for li := range o.layers {
		o.recordLayer(li, sh.n)
	}
	if sh.nOut > 0 {
		o.recordOutputs(sh.nOut, sh.head)
	}
	if err := r.Submit(); err != nil {
		return err
	}
	o.last = sh
	return nil
}

// writeTables fills the host tables the shaders read: per token its
// sequence, position and cell, the batch sequences' page tables, the
// rotary tables and the output rows.
func (o *offload) writeTables(st *engine.OffloadStep) {
	b := st.Batch
	tok, pages := o.host.tok.Uint32s(), o.host.pages.Uint32s()
	ps, mp := o.cacheOpt.PageSize, st.Cache.MaxSpans()
	for seq, n := range o.kv.batchLen {
		if n == 0 {
			continue
		}
		pt := pages[seq*mp : (seq+1)*mp]
		for _, sp := range st.Cache.Spans(seq, n, o.kv.spans) {
			for p := 0; p < sp.N; p += ps {
				pt[(sp.Pos+p)/ps] = uint32((sp.Cell + p) / ps)
			}
		}
	}
	for i := range b.Len() {
		seq, pos := int(b.Seq[i]), int(b.Pos[i])
		page := pages[seq*mp+pos/ps]
		tok[4*i], tok[4*i+1], tok[4*i+2], tok[4*i+3] = uint32(seq), uint32(pos), page*uint32(ps)+uint32(pos%ps), 0
	}
	copy(o.host.rope.Floats(), st.Rope)
	idx := o.host.outIdx.Uint32s()
	for k, i := range st.Out {
		idx[k] = uint32(i)
	}
}

// recordLayer records offloaded layer li (model layer first+li) for n
// tokens: the same sequence of operations as the CPU forward pass.
func (o *offload) recordLayer(li, n int) {
	r, s, l, d, h := o.r, o.spec, &o.layers[li], &o.dev, &o.host
	qDim, kvDim, e := s.NHead*s.HeadDim, s.NHeadKV*s.HeadDim, s.NEmbd
	r.RMSNorm(d.xn.All(), d.x.All(), l.attnNorm, n, e, s.Eps)
	r.Barrier()
	o.newInput()
	o.matMul(d.q, qDim, l.wq, d.xn, e, n)
	o.matMul(d.k, kvDim, l.wk, d.xn, e, n)
	o.matMul(d.v, kvDim, l.wv, d.xn, e, n)
	r.Barrier()
	if l.bq.B != nil || l.bk.B != nil || l.bv.B != nil {
		o.addBias(d.q, l.bq, n, qDim)
		o.addBias(d.k, l.bk, n, kvDim)
		o.addBias(d.v, l.bv, n, kvDim)
		r.Barrier()
	}
	if l.qNorm.B != nil {
		r.RMSNorm(d.q.All(), d.q.All(), l.qNorm, n*s.NHead, s.HeadDim, s.Eps)
		r.RMSNorm(d.k.All(), d.k.All(), l.kNorm, n*s.NHeadKV, s.HeadDim, s.Eps)
		r.Barrier()
	}
	r.Rope(d.q.All(), h.rope.All(), n, s.NHead, s.HeadDim, s.NRot, qDim, s.Neox)
	r.Rope(d.k.All(), h.rope.All(), n, s.NHeadKV, s.HeadDim, s.NRot, kvDim, s.Neox)
	r.Barrier()
	r.KVWrite(o.kvType, d.k.All(), d.v.All(), kvDim, h.tok.All(), n, kvDim, o.kc[li].All(), o.vc[li].All(), h.kvout.All(), li*2*n*o.rowBytes/4)
	r.Barrier()
	r.Attention(o.kvType, d.att.All(), d.q.All(), o.kc[li].All(), o.vc[li].All(), h.tok.All(), h.pages.All(), vk.AttnShape{
		NTok: n, NHead: s.NHead, NHeadKV: s.NHeadKV, HeadDim: s.HeadDim, KVDim: kvDim,
		PageSize: o.cacheOpt.PageSize, MaxPages: o.kv.maxPages, Scale: float32(1 / math.Sqrt(float64(s.HeadDim))),
		QStride: qDim, OStride: qDim,
	})
	r.Barrier()
	o.newInput()
	o.matMul(d.proj, e, l.wo, d.att, qDim, n)
	r.Barrier()
	r.Add(d.x.All(), d.x.All(), d.proj.All(), n*e, n*e)
	r.Barrier()
	r.RMSNorm(d.xn.All(), d.x.All(), l.ffnNorm, n, e, s.Eps)
	r.Barrier()
	o.newInput()
	o.matMul(d.gate, s.NFF, l.gate, d.xn, e, n)
	o.matMul(d.up, s.NFF, l.up, d.xn, e, n)
	r.Barrier()
	r.SwiGLU(d.gate.All(), d.gate.All(), d.up.All(), n*s.NFF)
	r.Barrier()
	o.newInput()
	o.matMul(d.proj, e, l.down, d.gate, s.NFF, n)
	r.Barrier()
	r.Add(d.x.All(), d.x.All(), d.proj.All(), n*e, n*e)
	r.Barrier()
}

// newInput forgets the activations held in dev.xq: the next product reads
// a new input.
func (o *offload) newInput() { o.xqType = noActs }

// noActs marks dev.xq as holding nothing.
const noActs = kernels.DType(1<<32 - 1)

// matMul records dst = w · x for n columns of cols values, on x itself for
// f32 weights and otherwise on x rounded to w's vec-dot type (dev.xq, made
// once for consecutive products of the same input and type), so that the
// products match the CPU path's quantized activations.
func (o *offload) matMul(dst *vk.Buffer, stride int, w *vk.Matrix, x *vk.Buffer, cols, n int) {
	src := x.All()
	if vt := w.Type.VecDotType(); vt != kernels.F32 {
		if vt != o.xqType {
			if o.xqType != noActs {
				o.r.Barrier() // products still read the old activations
			}
			o.r.ActQuant(o.dev.xq.All(), x.All(), n, cols, vt)
			o.r.Barrier()
			o.xqType = vt
		}
		src = o.dev.xq.All()
	}
	o.r.MatMul(dst.All(), stride, w, src, cols, n)
}

// addBias adds an optional bias to every row.
func (o *offload) addBias(x *vk.Buffer, bias vk.Region, n, width int) {
	if bias.B != nil {
		o.r.Add(x.All(), x.All(), bias, n*width, width)
	}
}

// recordOutputs gathers the nOut output rows and either runs the head
// into host.logits or copies the rows to host.xout for the CPU's head.
func (o *offload) recordOutputs(nOut int, head bool) {
	r, s, d, h := o.r, o.spec, &o.dev, &o.host
	r.GetRows(d.xo.All(), s.NEmbd, o.xView, h.outIdx.All(), nOut)
	r.Barrier()
	if !head {
		r.Copy(h.xout.All(), d.xo.Region(0, uint64(4*nOut*s.NEmbd)))
		return
	}
	r.RMSNorm(d.xn.All(), d.xo.All(), o.outNorm, nOut, s.NEmbd, s.Eps)
	r.Barrier()
	o.newInput()
	o.matMul(h.logits, s.NVocab, o.output, d.xn, s.NEmbd, nOut)
}
