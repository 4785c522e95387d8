package engine

import (
	"errors"
	"fmt"
	"sync"

	"github.com/waggle-llm/waggle/kvcache"
)

// This file is the seam between an architecture's forward pass and a GPU
// backend. The engine does not import any backend: a backend package
// (engine/vulkan, built with the tag `vulkan`) registers an OffloadFactory
// from init, and cmd/waggle imports it only in builds with that tag, so the
// default binary stays static and cgo-free. A session asked for GPU layers
// (SessionOptions.GPULayers, llama.cpp's -ngl) describes its decoder with a
// DecoderSpec and hands each step's last layers to the Offload it gets.

// DecoderSpec describes a llama-family decoder for a backend: per layer
// RMSNorm, q/k/v projections with optional biases and per-head q/k
// RMSNorm, rotary positions, grouped-query attention, the output
// projection and a SwiGLU feed-forward, each block added to the residual
// stream; then the final RMSNorm and the output head. Matrices stay the
// mmapped ones; the backend copies what it runs.
type DecoderSpec struct {
	Arch                                        string
	NEmbd, NHead, NHeadKV, HeadDim, NFF, NVocab int
	Eps                                         float32 // RMSNorm epsilon (layers, q/k norms, output)
	NRot                                        int     // rotated values per head
	Neox                                        bool    // rotary pairs (i, i+NRot/2) instead of (2i, 2i+1)
	Layers                                      []DecoderLayer
	OutputNorm                                  []float32
	Output                                      *Matrix
}

// DecoderLayer holds one block's weights; optional ones are nil.
type DecoderLayer struct {
	AttnNorm, FFNNorm []float32
	Wq, Wk, Wv, Wo    *Matrix
	Bq, Bk, Bv        []float32 // q/k/v biases (qwen2)
	QNorm, KNorm      []float32 // per-head RMSNorm weights (qwen3), HeadDim values
	Gate, Up, Down    *Matrix
}

// OffloadStep is one forward pass handed to an Offload after the layers
// before FirstLayer ran on the CPU.
type OffloadStep struct {
	Batch *Batch
	// X holds Batch.Len() rows of NEmbd values: the residual stream entering
	// FirstLayer. When the head stays on the CPU, Forward overwrites the
	// rows listed in Out with the stream after the last layer (other rows
	// are left as they were).
	X []float32
	// Rope holds each token's rotary table, NRot values (cos, sin pairs) per
	// token, as kernels.RopeCache writes them.
	Rope []float32
	// Out lists the batch rows whose logits (or final state) are wanted.
	Out []int
	// Logits receives len(Out) rows of NVocab logits when Forward reports
	// that it ran the head.
	Logits []float32
	// Cache is the session's KV cache after PlanBatch reserved the batch's
	// cells; the backend keeps the offloaded layers' rows in it up to date.
	Cache *kvcache.Cache
}

// Offload runs the last layers of a decoder (and maybe its head) for one
// session. It is not safe for concurrent use.
type Offload interface {
	// Name is the backend's name for reports ("Vulkan").
	Name() string
	// Device names the device it runs on.
	Device() string
	// FirstLayer is the first layer that runs on the device.
	FirstLayer() int
	// Forward runs layers FirstLayer.. for the step and, when it can, the
	// output head; head reports whether it did (st.Logits filled) or left
	// it to the caller (the Out rows of st.X updated).
	Forward(st *OffloadStep) (head bool, err error)
	// Invalidate says that the session rewrote sequence seq's cached rows
	// on the CPU (a context shift), so the device copy must be refreshed.
	Invalidate(seq int)
	// Close releases the device resources.
	Close() error
}

// OffloadFactory makes an Offload for a session with opts.GPULayers > 0,
// over cache (the session's KV cache, already created).
type OffloadFactory func(spec *DecoderSpec, opts SessionOptions, cache *kvcache.Cache) (Offload, error)

var (
	offloadMu      sync.RWMutex
	offloadFactory OffloadFactory
	offloadName    string
)

// RegisterOffload installs the GPU backend. Backends call it from init.
func RegisterOffload(name string, f OffloadFactory) {
	offloadMu.Lock()
	defer offloadMu.Unlock()
	if offloadFactory != nil {
		panic("engine: offload backend registered twice: " + name)
	}
	offloadName, offloadFactory = name, f
}

// OffloadBackend returns the registered backend's name, "" if none.
func OffloadBackend() string {
	offloadMu.RLock()
	defer offloadMu.RUnlock()
	return offloadName
}

// ErrNoOffload is returned for GPU layers in a binary without a backend.
var ErrNoOffload = errors.New("engine: GPU offload (-ngl > 0) needs a binary built with GPU support (go build -tags vulkan); this one runs on the CPU only")

// NewOffload makes the registered backend's Offload for a session.
func NewOffload(spec *DecoderSpec, opts SessionOptions, cache *kvcache.Cache) (Offload, error) {
	offloadMu.RLock()
	f := offloadFactory
	offloadMu.RUnlock()
	if f == nil {
		return nil, ErrNoOffload
	}
	return f(spec, opts, cache)
}

// RefuseOffload is what an architecture without an offload path returns
// from NewSession when asked for GPU layers (nil when none are asked for),
// so -ngl is never ignored silently.
func RefuseOffload(arch string, o SessionOptions) error {
	if o.GPULayers == 0 {
		return nil
	}
	return fmt.Errorf("%s: GPU offload (-ngl %d) is not supported for this architecture; use -ngl 0", arch, o.GPULayers)
}

// Backend names where a session computes: the offload backend's name when
// it runs layers on a device, else "CPU".
func Backend(s Session) string {
	if b, ok := s.(interface{ Backend() string }); ok {
		return b.Backend()
	}
	return "CPU"
}

// CloseSession releases a session's device resources, if it holds any (a
// session on the CPU holds none; one with GPU layers frees them also when
// it is garbage collected, this only makes it prompt).
func CloseSession(s Session) error {
	if c, ok := s.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}
