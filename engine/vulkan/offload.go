//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"slices"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kernels"
	vk "github.com/waggle-llm/waggle/kernels/vulkan"
	"github.com/waggle-llm/waggle/kvcache"
)

// offload is one session's layer range on a device.
type offload struct {
	d     *vk.Device
	r     *vk.Recorder // steps; reusable, so a step of the last step's shape is replayed
	xfer  *vk.Recorder // uploads (weights, KV refreshes)
	last  stepShape    // the shape of the recording r holds
	spec  *engine.DecoderSpec
	first int  // first offloaded layer
	head  bool // the output head's weights are on the device
	nb    int  // tokens per step at most (SessionOptions.NBatch)

	arena   *vk.Arena
	layers  []devLayer
	outNorm vk.Region
	output  *vk.Matrix

	kvType   vk.KVType
	rowBytes int // bytes of one cached key (or value) row
	kc, vc   []*vk.Buffer

	dev    devBuffers
	host   hostBuffers
	xView  *vk.Matrix    // dev.x seen as an f32 matrix, for the output-row gather
	xqType kernels.DType // what dev.xq holds (noActs: nothing)
	logCap int           // outputs whose logits fit one binding of host.logits

	cacheOpt kvcache.Options
	kv       kvMirror
	owned    []*vk.Buffer // every buffer to free on Close
}

// devLayer is one offloaded layer's weights on the device.
type devLayer struct {
	attnNorm, ffnNorm, bq, bk, bv, qNorm, kNorm vk.Region
	wq, wk, wv, wo, gate, up, down              *vk.Matrix
}

// devBuffers are the activations of a step, NBatch rows each.
type devBuffers struct {
	x, xn, q, k, v, att, proj, gate, up, xo *vk.Buffer
	xq                                      *vk.Buffer // activations rounded for a product (forward.go matMul)
}

// hostBuffers are mapped buffers the CPU writes before a step and reads
// after it.
type hostBuffers struct {
	xin, xout, logits, kvout, tok, pages, rope, outIdx *vk.Buffer
}

// New makes the Vulkan offload of a session (engine.OffloadFactory).
func New(spec *engine.DecoderSpec, opts engine.SessionOptions, cache *kvcache.Cache) (engine.Offload, error) {
	nLayer := len(spec.Layers)
	if opts.GPULayers <= 0 {
		return nil, fmt.Errorf("vulkan: %d GPU layers", opts.GPULayers)
	}
	kt, err := kvType(opts.TypeK, opts.TypeV)
	if err != nil {
		return nil, err
	}
	d, err := openDevice(opts.Device)
	if err != nil {
		return nil, err
	}
	o := &offload{d: d, spec: spec, first: max(0, nLayer-opts.GPULayers), nb: opts.NBatch, kvType: kt, cacheOpt: cache.Options()}
	o.head = opts.GPULayers > nLayer && !slices.Contains(opts.CaptureLayers, -1)
	o.rowBytes = kt.RowBytes(spec.NHeadKV * spec.HeadDim)
	if k, v := cache.RowBytes(); k != o.rowBytes || v != o.rowBytes {
		return nil, fmt.Errorf("vulkan: cache rows of %d/%d bytes, the device's are %d", k, v, o.rowBytes)
	}
	if o.r, err = d.NewRecorder(); err != nil {
		return nil, err
	}
	o.r.Reusable()
	if o.xfer, err = d.NewRecorder(); err != nil {
		o.r.Close()
		return nil, err
	}
	if err := o.build(cache); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// kvType maps the session's cache types to the device's.
func kvType(k, v kvcache.Type) (vk.KVType, error) {
	if k != v || (k != kvcache.F16 && k != kvcache.F32) {
		return 0, fmt.Errorf("vulkan: KV cache types %s/%s are not supported on the GPU: use --cache-type-k and --cache-type-v f16 (or f32), or -ngl 0", k, v)
	}
	if k == kvcache.F16 {
		return vk.KVF16, nil
	}
	return vk.KVF32, nil
}

// build uploads the weights and allocates the cache and step buffers.
func (o *offload) build(cache *kvcache.Cache) error {
	if err := o.uploadWeights(); err != nil {
		return err
	}
	if err := o.allocKV(cache); err != nil {
		return err
	}
	if err := o.allocStep(cache); err != nil {
		return err
	}
	o.kv.init(cache)
	return nil
}

// uploadWeights places the offloaded layers (and the head) in the arena.
func (o *offload) uploadWeights() error {
	o.arena = o.d.NewArena()
	p := &placer{a: o.arena}
	for il := o.first; il < len(o.spec.Layers); il++ {
		l := &o.spec.Layers[il]
		o.layers = append(o.layers, devLayer{
			attnNorm: p.vector(l.AttnNorm), ffnNorm: p.vector(l.FFNNorm),
			bq: p.vector(l.Bq), bk: p.vector(l.Bk), bv: p.vector(l.Bv), qNorm: p.vector(l.QNorm), kNorm: p.vector(l.KNorm),
			wq: p.matrix(l.Wq), wk: p.matrix(l.Wk), wv: p.matrix(l.Wv), wo: p.matrix(l.Wo),
			gate: p.matrix(l.Gate), up: p.matrix(l.Up), down: p.matrix(l.Down),
		})
	}
	if o.head {
		o.outNorm, o.output = p.vector(o.spec.OutputNorm), p.matrix(o.spec.Output)
	}
	if p.err != nil {
		return p.err
	}
	return o.arena.Upload(o.xfer)
}

// placer places tensors, keeping the first error.
type placer struct {
	a   *vk.Arena
	err error
}

func (p *placer) matrix(m *engine.Matrix) *vk.Matrix {
	if p.err != nil {
		return nil
	}
	if m == nil {
		p.err = fmt.Errorf("vulkan: a dense layer matrix is missing")
		return nil
	}
	if !vk.Supports(m.Type) {
		p.err = fmt.Errorf("vulkan: tensor %s has type %s, which has no GPU kernel; use -ngl 0 or requantize", m.Name, m.Type)
		return nil
	}
	dm, err := p.a.Matrix(m.Type, m.Rows, m.Cols, m.Data)
	if err != nil {
		p.err = fmt.Errorf("vulkan: tensor %s: %w", m.Name, err)
	}
	return dm
}

// vector places an optional vector (nil stays a zero Region).
func (p *placer) vector(v []float32) vk.Region {
	if p.err != nil || v == nil {
		return vk.Region{}
	}
	r, err := p.a.Vector(v)
	if err != nil {
		p.err = err
	}
	return r
}

// buffer allocates a buffer of n float32 (or uint32) values that Close
// frees; sizes over the binding limit are refused with a hint.
func (o *offload) buffer(what string, n int, m vk.Memory) (*vk.Buffer, error) {
	bytes := uint64(4 * max(n, 1))
	if bytes > o.d.MaxStorageBufferRange() {
		return nil, fmt.Errorf("vulkan: %s needs %d MiB, over the device's %d MiB binding limit; lower the batch size (-b/-ub) or the context", what, bytes>>20, o.d.MaxStorageBufferRange()>>20)
	}
	b, err := o.d.NewBuffer(bytes, m)
	if err != nil {
		return nil, fmt.Errorf("vulkan: %s: %w", what, err)
	}
	o.owned = append(o.owned, b)
	return b, nil
}

// allocKV makes a key and a value buffer per offloaded layer, one row per
// cell of the session's cache.
func (o *offload) allocKV(cache *kvcache.Cache) error {
	cells := cache.NumPages() * cache.PageSize()
	words := cells * o.rowBytes / 4
	for range o.layers {
		k, err := o.buffer("the KV cache of a layer", words, vk.DeviceMemory)
		if err != nil {
			return err
		}
		v, err := o.buffer("the KV cache of a layer", words, vk.DeviceMemory)
		if err != nil {
			return err
		}
		o.kc, o.vc = append(o.kc, k), append(o.vc, v)
	}
	return nil
}

// allocStep makes the activation and parameter buffers of a step.
func (o *offload) allocStep(cache *kvcache.Cache) error {
	s, nb := o.spec, o.nb
	qDim, kvDim := s.NHead*s.HeadDim, s.NHeadKV*s.HeadDim
	var err error
	dev := func(what string, n int) *vk.Buffer {
		var b *vk.Buffer
		if err == nil {
			b, err = o.buffer(what, n, vk.DeviceMemory)
		}
		return b
	}
	host := func(what string, n int) *vk.Buffer {
		var b *vk.Buffer
		if err == nil {
			b, err = o.buffer(what, n, vk.HostMemory)
		}
		return b
	}
	o.dev = devBuffers{
		x: dev("the residual stream", nb*s.NEmbd), xn: dev("the normalised stream", nb*s.NEmbd),
		q: dev("the queries", nb*qDim), k: dev("the keys", nb*kvDim), v: dev("the values", nb*kvDim),
		att: dev("the attention output", nb*qDim), proj: dev("the projections", nb*s.NEmbd),
		gate: dev("the feed-forward gate", nb*s.NFF), up: dev("the feed-forward up projection", nb*s.NFF),
		xo: dev("the output rows", nb*s.NEmbd), xq: dev("the rounded activations", nb*max(s.NEmbd, qDim, s.NFF)),
	}
	o.logCap = nb
	if o.head {
		o.logCap = min(nb, int(o.d.MaxStorageBufferRange()/uint64(4*s.NVocab)))
	}
	o.host = hostBuffers{
		xin: host("the input rows", nb*s.NEmbd), xout: host("the output rows", nb*s.NEmbd),
		kvout: host("the new KV rows", 2*len(o.layers)*nb*o.rowBytes/4),
		tok:   host("the token table", 4*nb), pages: host("the page tables", cache.Options().NSeq*cache.MaxSpans()),
		rope: host("the rotary tables", nb*s.NRot), outIdx: host("the output index", nb),
	}
	if o.head && o.logCap > 0 {
		o.host.logits = host("the logits", o.logCap*s.NVocab)
	}
	if err != nil {
		return err
	}
	o.xView = &vk.Matrix{Type: kernels.F32, Rows: nb, Cols: s.NEmbd, RowBytes: 4 * s.NEmbd,
		Parts: []vk.MatrixPart{{R: o.dev.x.All(), Row0: 0, Rows: nb}}}
	return nil
}

func (o *offload) Name() string    { return "Vulkan" }
func (o *offload) Device() string  { return o.d.Name() }
func (o *offload) FirstLayer() int { return o.first }

// Invalidate forgets the device copy of sequence seq's rows.
func (o *offload) Invalidate(seq int) { o.kv.invalidate(seq) }

// Close frees the session's device resources; the device stays open for
// other sessions.
func (o *offload) Close() error {
	if o.r == nil {
		return nil
	}
	for _, b := range o.owned {
		b.Free()
	}
	o.owned = nil
	if o.arena != nil {
		o.arena.Free()
	}
	o.kv.free()
	o.r.Close()
	o.xfer.Close()
	o.r, o.xfer = nil, nil
	return nil
}
