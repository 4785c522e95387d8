// Package engine is Waggle's hub: the Model and Session interfaces every
// architecture implements, the registry that maps a GGUF's
// general.architecture to its implementation, shared building blocks for
// forward passes (typed weight matrices, attention over the KV cache) and the
// token-by-token generation loop.
//
// The verbs offered to the layers above (speculation, batching, serving) are
// those of a Session: decode a batch of tokens for one or more sequences and
// read the logits (and, on request, hidden states) of chosen positions;
// truncate a sequence; fork a sequence. Everything above is built on them, so
// the engine never imports spec or server.
package engine

import (
	"errors"

	"github.com/waggle-llm/waggle/kvcache"
)

// Batch is a set of tokens to evaluate in one forward pass. Token i belongs
// to sequence Seq[i] at position Pos[i]; positions of one sequence must be
// consecutive, continuing from the sequence's current length. Output[i] asks
// for logits (and captured hidden states) of token i.
//
// A tree batch (Parent non-empty, one entry per token) verifies several
// continuations of a sequence at once, as tree drafters (DDTree, EAGLE)
// propose them. Parent[i] = -1 makes token i an ordinary token, which
// attends causally to every position of its sequence up to its own;
// Parent[i] = j (j < i, same sequence) makes it a tree node whose parent
// is batch token j: it attends only to what j sees plus itself (the
// committed positions before the tree's root and its own ancestors), and
// its rotary position is j's plus one (its depth below the root), so
// siblings share a position. Pos[i] still numbers the cache cells
// consecutively (token i is stored at position Pos[i]); after the Decode
// the caller keeps one root-to-leaf path with TreeSession.KeepPath, which
// moves the path's cells to consecutive positions. An ordinary token must
// not follow a tree node of its sequence in the same batch. Sessions that
// do not implement TreeSession refuse tree batches.
type Batch struct {
	Tokens []int32
	Pos    []int32
	Seq    []int32
	Output []bool
	Parent []int32
}

// Reset empties the batch, keeping its storage.
func (b *Batch) Reset() {
	b.Tokens, b.Pos, b.Seq, b.Output = b.Tokens[:0], b.Pos[:0], b.Seq[:0], b.Output[:0]
	b.Parent = b.Parent[:0]
}

// Add appends one ordinary token.
func (b *Batch) Add(tok, pos, seq int32, output bool) {
	b.Tokens = append(b.Tokens, tok)
	b.Pos = append(b.Pos, pos)
	b.Seq = append(b.Seq, seq)
	b.Output = append(b.Output, output)
	if len(b.Parent) > 0 {
		b.Parent = append(b.Parent, -1)
	}
}

// AddNode appends a tree node whose parent is batch token parent (-1: an
// ordinary token), making the batch a tree batch.
func (b *Batch) AddNode(tok, pos, seq, parent int32, output bool) {
	for len(b.Parent) < len(b.Tokens) {
		b.Parent = append(b.Parent, -1)
	}
	b.Tokens = append(b.Tokens, tok)
	b.Pos = append(b.Pos, pos)
	b.Seq = append(b.Seq, seq)
	b.Output = append(b.Output, output)
	b.Parent = append(b.Parent, parent)
}

// Len returns the number of tokens in the batch.
func (b *Batch) Len() int { return len(b.Tokens) }

// IsTree reports whether the batch carries parents.
func (b *Batch) IsTree() bool { return len(b.Parent) > 0 }

// RopePositions fills dst[:Len()] with every token's position in its
// sequence as the network sees it (rotary embedding, attention order):
// Pos[i] for an ordinary token, its parent's plus one for a tree node.
// The batch must have been validated (PlanBatch).
func (b *Batch) RopePositions(dst []int32) []int32 {
	dst = append(dst[:0], b.Pos...)
	for i, p := range b.Parent {
		if p >= 0 {
			dst[i] = dst[p] + 1
		}
	}
	return dst
}

// TreeSession is implemented by sessions that decode tree batches.
type TreeSession interface {
	// KeepPath keeps one root-to-leaf path of the tree that the last
	// Decode appended to sequence seq, and must follow that Decode before
	// any other change to seq. root is the position of the tree's root
	// (an ordinary token); path lists the positions (cells, Batch.Pos) of
	// the kept nodes from depth 1 down, each a child of the one before
	// (the first a child of the root). Afterwards seq holds root+1+
	// len(path) positions: position root+1+k holds what path[k] held, and
	// the cache (keys, values, recurrent state) equals what decoding the
	// root and the path as ordinary tokens would have left. An empty path
	// keeps the root only.
	KeepPath(seq, root int, path []int32) error
	// TreeLimit is the most tokens a tree batch may give one sequence
	// (0: only the batch size limits it).
	TreeLimit() int
}

// Info describes a loaded model.
type Info struct {
	Arch       string // general.architecture
	Name       string // general.name, if any
	NVocab     int
	NCtxTrain  int
	NEmbd      int
	NLayer     int
	NHead      int
	NHeadKV    int
	HeadDim    int
	NFF        int
	NParams    int64 // total weight values
	WeightSize int64 // bytes of tensor data
	FileType   string
}

// SessionOptions sizes a session's KV cache and scratch space.
type SessionOptions struct {
	NCtx int // positions per sequence (default: min(training context, 4096))
	NSeq int // sequences (default 1)
	// KVUnified makes the NSeq sequences share one KV pool of NCtx cells
	// (llama.cpp's --kv-unified) instead of NCtx cells each: any sequence
	// may grow to NCtx positions while the pool has free pages, and a
	// Decode that needs a page when none is free fails with ErrKVPoolFull.
	KVUnified bool
	NBatch    int // maximum tokens per Decode (default 512)
	TypeK     kvcache.Type
	TypeV     kvcache.Type
	// FlashAttn selects the online-softmax attention (llama.cpp's
	// --flash-attn on; engine/attention_flash.go) over the default exact
	// two-pass one, which matches llama.cpp without flash attention.
	FlashAttn bool
	// Threads is the number of worker threads of the forward pass (0: the
	// process default, kernels.DefaultThreads). Sessions with the same
	// count share one process-wide pool (kernels.SharedPool).
	Threads int
	// CaptureLayers lists the layers whose output hidden state is kept for
	// every output token (speculative drafters read them). -1 means the final
	// normalised state that feeds the output head.
	CaptureLayers []int
	// GPULayers is llama.cpp's -ngl: the last GPULayers layers, with their
	// KV cache, run on the GPU backend (offload.go); above the layer count
	// the output head runs there too. 0 runs everything on the CPU.
	GPULayers int
	// Device picks the GPU (--device / --main-gpu): an index or a name
	// substring; "" lets the backend choose.
	Device string
	// Taps lists residual-stream points (Tap) captured for every token of
	// every Decode, read through the Tapper interface (drafters that
	// condition on the target's hidden states: DFlash, EAGLE-3). Memory:
	// NBatch·len(Taps)·NEmbd float32. Points inside offloaded layers are
	// refused.
	Taps []Tap
}

// Model is a loaded network. It is immutable and may back many sessions.
type Model interface {
	Info() *Info
	NewSession(opts SessionOptions) (Session, error)
}

// Session owns a KV cache and scratch buffers. Its methods are not safe for
// concurrent use.
type Session interface {
	// Decode evaluates the batch, storing its keys and values in the cache.
	// On success, the logits of the k-th token with Output set are Logits(k).
	Decode(b *Batch) error
	// Logits returns the logits of the k-th output of the last Decode. The
	// slice is owned by the session and valid until the next Decode.
	Logits(k int) []float32
	// NumOutputs returns how many outputs the last Decode produced.
	NumOutputs() int
	// Hidden returns the captured hidden state of layer (as listed in
	// SessionOptions.CaptureLayers) for the k-th output, or nil.
	Hidden(layer, k int) []float32
	// SeqLen returns the number of positions held for sequence seq.
	SeqLen(seq int) int
	// Truncate drops positions >= pos of sequence seq.
	Truncate(seq, pos int) error
	// Fork makes sequence dst a copy of the first n positions of src.
	Fork(src, dst, n int) error
	// Options returns the effective options.
	Options() SessionOptions
	// Cache exposes the KV cache (memory report, state files).
	Cache() *kvcache.Cache
}

// Shifter is implemented by sessions that can shift a sequence, the verb
// behind llama.cpp's context shift (--context-shift): when a generating
// sequence reaches its context, the server drops the oldest tokens after a
// kept prefix and goes on. It is a separate interface, not a Session
// method, because not every architecture can do it: a recurrent or hybrid
// model's state has already absorbed the dropped tokens, so it cannot
// forget them; callers test for it with a type assertion.
type Shifter interface {
	// Shift drops positions [keep, keep+drop) of sequence seq and moves
	// positions [keep+drop, n) down by drop, so the sequence holds n-drop
	// positions and continues at n-drop. Keys are re-rotated by -drop
	// positions (RoPE composes additively), so each kept key equals the
	// key of its token at the new position up to float rounding; values
	// carry no position and move unchanged. The moved tokens keep the
	// attention context they were computed with (they saw the dropped
	// tokens); that is the approximation llama.cpp makes too. drop 0 is a
	// no-op; keep+drop must not exceed the sequence's length. On error
	// before the move the sequence is unchanged; if the cache has no
	// room to rewrite it (a full unified pool), it is left holding its
	// first keep positions and the error says so.
	Shift(seq, keep, drop int) error
}

// ErrContextFull is returned by Decode when a sequence would grow past NCtx.
var ErrContextFull = errors.New("engine: context is full")

// ErrKVPoolFull is returned (wrapped) by Decode and Fork when a unified KV
// pool has no free page for a sequence that grows; the session is
// unchanged, and truncating another sequence frees pages.
var ErrKVPoolFull = kvcache.ErrPoolFull
