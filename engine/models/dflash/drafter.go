package dflash

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
)

// drafter is a Model bound to a target: the target's embeddings and output
// head, each sequence's projected context rows (crossCache) and the
// scratch of a forward pass over up to MaxBlocks blocks, sized once.
type drafter struct {
	m        *Model
	emb, out *engine.Matrix
	o        engine.BlockDrafterOptions
	pool     *kernels.Pool
	nVocab   int
	cross    []crossCache // per sequence, allocated on first use

	// The pass over T = Σ N_j block rows, row r of a buffer being block row r.
	x, h, y   []float32 // T × n_embd: residual, normalised input, projection output
	q         []float32 // T × n_head·hd rotated queries
	kb, vb    []float32 // T × n_kv·hd the blocks' own keys (rotated) and values
	att       []float32 // T × n_head·hd attention output
	gate, up  []float32 // T × n_ff
	act       []byte    // rows of activations in a weight's vec-dot format
	rope      []float32 // (CrossCtx + BlockSize) × n_rot: the rotation of each window position
	keys, val []float32 // (CrossCtx + BlockSize) × n_kv·hd: one block's key and value sequence
	scores    []float32 // CrossCtx + BlockSize
	logits    []float32 // T × n_vocab (row 0 of each block is not computed)
	rowOff    []int     // per job of the last Draft: its first block row
	crossLen  []int     // per job of the last Draft: its window's rows
	outRow    []int     // per block row: its logits row, -1 for an anchor
	ctxIn     []float32 // projectChunk × n_target_features: context rows being projected
}

// projectChunk is the most context rows projected by one matrix product.
const projectChunk = 64

// NewBlockDrafter binds the drafter to target (engine.BlockDrafterModel).
func (m *Model) NewBlockDrafter(target engine.Model, o engine.BlockDrafterOptions) (engine.BlockDrafter, error) {
	hs, ok := target.(engine.HeadSharer)
	if !ok {
		return nil, fmt.Errorf("%s: the target (%s) does not share its embeddings and output head", arch, target.Info().Arch)
	}
	if err := m.checkTarget(target.Info()); err != nil {
		return nil, err
	}
	if o.CrossCtx <= 0 || o.CrossCtx > 1<<16 || o.NSeq <= 0 || o.NSeq > 1<<16 || o.MaxBlocks <= 0 || o.MaxBlocks > 1024 {
		return nil, fmt.Errorf("%s: cross window %d, %d sequences, %d blocks out of range", arch, o.CrossCtx, o.NSeq, o.MaxBlocks)
	}
	if o.Threads < 0 || o.Threads > kernels.MaxThreads {
		return nil, fmt.Errorf("%s: threads %d out of range [0, %d]", arch, o.Threads, kernels.MaxThreads)
	}
	emb, out := hs.SharedHead()
	if emb.Cols != m.hp.nEmbd || out.Cols != m.hp.nEmbd {
		return nil, fmt.Errorf("%s: the target's embeddings are %d wide, the drafter's hidden size is %d", arch, emb.Cols, m.hp.nEmbd)
	}
	hp := &m.hp
	t := o.MaxBlocks * hp.blockSize
	qd, kvd, seqLen := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim, o.CrossCtx+hp.blockSize
	actBytes := out.ActivationBytes()
	for _, w := range m.matrices() {
		actBytes = max(actBytes, w.ActivationBytes())
	}
	f := func(n int) []float32 { return make([]float32, n) }
	d := &drafter{
		m: m, emb: emb, out: out, o: o, pool: kernels.SharedPool(o.Threads), nVocab: out.Rows,
		cross: make([]crossCache, o.NSeq),
		x:     f(t * hp.nEmbd), h: f(max(t, projectChunk) * hp.nEmbd), y: f(t * hp.nEmbd),
		q: f(t * qd), kb: f(max(t, projectChunk) * kvd), vb: f(max(t, projectChunk) * kvd), att: f(t * qd),
		gate: f(t * hp.nFF), up: f(t * hp.nFF),
		act:  make([]byte, max(t, projectChunk)*actBytes),
		rope: f(seqLen * hp.rope.NRot), keys: f(seqLen * kvd), val: f(seqLen * kvd), scores: f(seqLen),
		rowOff: make([]int, 0, o.MaxBlocks), crossLen: make([]int, 0, o.MaxBlocks), outRow: make([]int, t),
		ctxIn: f(projectChunk * hp.nEmbd * len(hp.layerIDs)),
	}
	for p := range seqLen {
		kernels.RopeCache(d.rope[p*hp.rope.NRot:(p+1)*hp.rope.NRot], p, &hp.rope)
	}
	return d, nil
}

// checkTarget refuses a target the drafter was not made for.
func (m *Model) checkTarget(ti *engine.Info) error {
	hp := &m.hp
	if ti.NEmbd != hp.nEmbd {
		return fmt.Errorf("%s: the drafter reads hidden states of %d values, the target (%s) has %d", arch, hp.nEmbd, ti.Arch, ti.NEmbd)
	}
	if hp.nVocab > 0 && ti.NVocab != hp.nVocab {
		return fmt.Errorf("%s: the drafter's vocabulary has %d tokens, the target's %d", arch, hp.nVocab, ti.NVocab)
	}
	for _, id := range hp.layerIDs {
		if id >= ti.NLayer {
			return fmt.Errorf("%s: the drafter taps target layer %d, the target has %d layers", arch, id, ti.NLayer)
		}
	}
	if int(hp.maskToken) >= ti.NVocab {
		return fmt.Errorf("%s: mask token %d outside the target's vocabulary of %d", arch, hp.maskToken, ti.NVocab)
	}
	return nil
}

// Logits returns row r of job j of the last Draft (nil for the anchor row).
func (d *drafter) Logits(j, r int) []float32 {
	k := d.outRow[d.rowOff[j]+r]
	if k < 0 {
		return nil
	}
	return d.logits[k*d.nVocab : (k+1)*d.nVocab]
}

// CrossLen returns the window rows job j of the last Draft attended to.
func (d *drafter) CrossLen(j int) int { return d.crossLen[j] }

// Draft runs the blocks of jobs in one pass (engine.BlockDrafter).
func (d *drafter) Draft(jobs []engine.BlockJob) error {
	if err := d.check(jobs); err != nil {
		return err
	}
	hp := &d.m.hp
	d.rowOff, d.crossLen = d.rowOff[:0], d.crossLen[:0]
	t, nOut := 0, 0
	for _, j := range jobs {
		d.crossLen = append(d.crossLen, d.sync(j.Seq, j.Ring))
		d.rowOff = append(d.rowOff, t)
		for r := range j.N {
			tok := hp.maskToken
			if r == 0 {
				tok, d.outRow[t] = j.Anchor, -1
			} else {
				d.outRow[t] = nOut
				nOut++
			}
			d.emb.DequantizeRow(row(d.x, t, hp.nEmbd), int(tok))
			t++
		}
	}
	for il := range d.m.layers {
		d.layer(&d.m.layers[il], il, jobs, t)
	}
	d.head(t, nOut)
	return nil
}

// check validates a Draft call.
func (d *drafter) check(jobs []engine.BlockJob) error {
	hp := &d.m.hp
	if len(jobs) == 0 || len(jobs) > d.o.MaxBlocks {
		return fmt.Errorf("%s: %d blocks in one draft, the drafter was sized for 1 to %d", arch, len(jobs), d.o.MaxBlocks)
	}
	for _, j := range jobs {
		switch {
		case j.Seq < 0 || j.Seq >= d.o.NSeq:
			return fmt.Errorf("%s: sequence %d out of range [0, %d)", arch, j.Seq, d.o.NSeq)
		case j.N < 2 || j.N > hp.blockSize:
			return fmt.Errorf("%s: block of %d tokens, want 2 to %d", arch, j.N, hp.blockSize)
		case j.Anchor < 0 || int(j.Anchor) >= d.emb.Rows:
			return fmt.Errorf("%s: anchor token %d outside the vocabulary", arch, j.Anchor)
		case j.Ring == nil || j.Ring.Len() == 0:
			return fmt.Errorf("%s: sequence %d has no target rows to draft from", arch, j.Seq)
		case j.Ring.Width() != hp.nEmbd*len(hp.layerIDs):
			return fmt.Errorf("%s: target rows of %d values, the drafter reads %d", arch, j.Ring.Width(), hp.nEmbd*len(hp.layerIDs))
		}
	}
	return nil
}

// layer runs drafter layer il over the t block rows of jobs.
func (d *drafter) layer(l *layer, il int, jobs []engine.BlockJob, t int) {
	hp := &d.m.hp
	qd, kvd := hp.nHead*hp.headDim, hp.nHeadKV*hp.headDim
	d.normRows(d.h, d.x, l.attnNorm, t)
	d.project(l.wq, d.q, d.h, t, true)
	d.project(l.wk, d.kb, d.h, t, !sameActs(l.wq, l.wk))
	d.project(l.wv, d.vb, d.h, t, !sameActs(l.wk, l.wv))
	for ji, j := range jobs {
		n0 := d.crossLen[ji]
		for r := range j.N {
			i := d.rowOff[ji] + r
			rope := d.rope[(n0+r)*hp.rope.NRot : (n0+r+1)*hp.rope.NRot]
			d.headsNormRope(row(d.q, i, qd), l.qNorm, rope)
			d.headsNormRope(row(d.kb, i, kvd), l.kNorm, rope)
		}
	}
	for ji, j := range jobs {
		d.attend(il, ji, j)
	}
	d.project(l.wo, d.y, d.att, t, true)
	addRows(d.x, d.y, t*hp.nEmbd)
	d.normRows(d.h, d.x, l.postNorm, t)
	d.project(l.gate, d.gate, d.h, t, true)
	d.project(l.up, d.up, d.h, t, !sameActs(l.gate, l.up))
	g, u := d.gate[:t*hp.nFF], d.up[:t*hp.nFF]
	kernels.SwiGLU(g, g, u)
	d.project(l.down, d.y, d.gate, t, true)
	addRows(d.x, d.y, t*hp.nEmbd)
}

// attend computes the attention output of job ji's block rows in layer il:
// each query head over [the window's keys at positions 0…N-1 | the
// block's keys], softmax(q·k/√hd) without a mask, times the values.
func (d *drafter) attend(il, ji int, j engine.BlockJob) {
	hp := &d.m.hp
	hd, kvd, qd := hp.headDim, hp.nHeadKV*hp.headDim, hp.nHead*hp.headDim
	n0, off := d.crossLen[ji], d.rowOff[ji]
	c := &d.cross[j.Seq]
	for t := range n0 {
		k := row(d.keys, t, kvd)
		copy(k, c.key(il, c.end-n0+t))
		copy(row(d.val, t, kvd), c.value(il, c.end-n0+t))
		rope := d.rope[t*hp.rope.NRot : (t+1)*hp.rope.NRot]
		for h := range hp.nHeadKV {
			kernels.RopeApply(k[h*hd:(h+1)*hd], rope, hp.rope.NRot, true)
		}
	}
	copy(d.keys[n0*kvd:(n0+j.N)*kvd], d.kb[off*kvd:(off+j.N)*kvd])
	copy(d.val[n0*kvd:(n0+j.N)*kvd], d.vb[off*kvd:(off+j.N)*kvd])
	n := n0 + j.N
	scale := float32(1 / math.Sqrt(float64(hd)))
	group := hp.nHead / hp.nHeadKV
	keys, vals := f32Bytes(d.keys[:n*kvd]), f32Bytes(d.val[:n*kvd])
	sc := d.scores[:n]
	for r := range j.N {
		q, out := row(d.q, off+r, qd), row(d.att, off+r, qd)
		for h := range hp.nHead {
			g := h / group
			kernels.AttnScores(kernels.F32, sc, keys[g*hd*4:], kvd*4, f32Bytes(q[h*hd:(h+1)*hd]), hd)
			kernels.Scale(sc, scale)
			kernels.SoftMax(sc)
			kernels.AttnValues(kernels.F32, out[h*hd:(h+1)*hd], sc, vals[g*hd*4:], kvd*4)
		}
	}
}

// head computes the logits of every block row but the anchors.
func (d *drafter) head(t, nOut int) {
	hp := &d.m.hp
	d.logits = grow(d.logits, nOut*d.nVocab)
	for i := range t {
		if k := d.outRow[i]; k >= 0 {
			y := row(d.y, k, hp.nEmbd)
			kernels.RMSNorm(y, row(d.x, i, hp.nEmbd), hp.eps)
			kernels.Mul(y, y, d.m.outputNorm)
		}
	}
	d.project(d.out, d.logits, d.y, nOut, true)
}

// headsNormRope applies the per-head RMSNorm and the NEOX rotation to
// every head of x in place.
func (d *drafter) headsNormRope(x, norm, rope []float32) {
	hp := &d.m.hp
	for h := 0; h < len(x); h += hp.headDim {
		head := x[h : h+hp.headDim]
		kernels.RMSNorm(head, head, hp.eps)
		kernels.Mul(head, head, norm)
		kernels.RopeApply(head, rope, hp.rope.NRot, true)
	}
}

// normRows writes RMSNorm(src_i)·w into row i of dst for n rows.
func (d *drafter) normRows(dst, src, w []float32, n int) {
	e := d.m.hp.nEmbd
	for i := range n {
		o := row(dst, i, e)
		kernels.RMSNorm(o, row(src, i, e), d.m.hp.eps)
		kernels.Mul(o, o, w)
	}
}

// project computes dst row i = w·(src row i) for n rows; quantize says
// whether the activations must be (re)converted for w.
func (d *drafter) project(w *engine.Matrix, dst, src []float32, n int, quantize bool) {
	if n == 0 {
		return
	}
	if quantize {
		w.QuantizeActs(d.pool, d.act, src, w.Cols, n)
	}
	w.MulMat(d.pool, dst, w.Rows, d.act, n)
}

func sameActs(a, b *engine.Matrix) bool {
	return a.Type.VecDotType() == b.Type.VecDotType() && a.Cols == b.Cols
}

func row(buf []float32, i, w int) []float32 { return buf[i*w : (i+1)*w] }

func addRows(x, y []float32, n int) { kernels.Add(x[:n], x[:n], y[:n]) }

func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}
