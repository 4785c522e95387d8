package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// Pooling says how a sequence's per-token embeddings become one vector,
// as llama.cpp's llama_pooling_type (the GGUF key <arch>.pooling_type
// stores these numbers). An embedding is the final normalised hidden
// state of a token, the row that feeds the output head (llama.cpp's
// t_embd, "result_norm").
type Pooling int

// The pooling types, numbered as in llama.cpp.
const (
	PoolingNone Pooling = 0 // one vector per token, no pooling
	PoolingMean Pooling = 1 // the mean over the sequence's tokens
	PoolingCLS  Pooling = 2 // the first token's
	PoolingLast Pooling = 3 // the last token's
	PoolingRank Pooling = 4 // a classifier head's score (rerankers)
)

var poolingNames = []string{"none", "mean", "cls", "last", "rank"}

func (p Pooling) String() string {
	if p >= 0 && int(p) < len(poolingNames) {
		return poolingNames[p]
	}
	return fmt.Sprintf("pooling(%d)", int(p))
}

// ParsePooling reads llama.cpp's --pooling names.
func ParsePooling(s string) (Pooling, error) {
	for i, n := range poolingNames {
		if strings.EqualFold(s, n) {
			return Pooling(i), nil
		}
	}
	return 0, fmt.Errorf("unknown pooling %q (want one of %s)", s, strings.Join(poolingNames, ", "))
}

// ModelPooling returns the file's <arch>.pooling_type, PoolingNone when
// the key is absent (llama.cpp's default for generative models).
func ModelPooling(f *gguf.File) (Pooling, error) {
	key := f.ArchKey("pooling_type")
	if _, ok := f.Get(key); !ok {
		return PoolingNone, nil
	}
	v, ok := f.Int(key)
	if !ok || v < 0 || v >= int64(len(poolingNames)) {
		return 0, fmt.Errorf("metadata %q is not a pooling type in [0, %d]", key, len(poolingNames)-1)
	}
	return Pooling(v), nil
}

// Embedder is implemented by sessions that can hand out embeddings
// instead of logits (llama.cpp's llama_set_embeddings). The server's
// scheduler tests for it with a type assertion.
type Embedder interface {
	// DecodeEmbeddings evaluates b exactly as Decode does (the keys and
	// values go into the cache), but for each token with Output set it
	// computes only the final normalised hidden state, read with
	// Embedding; the output head is skipped, so Logits is invalid until
	// the next Decode.
	DecodeEmbeddings(b *Batch) error
	// Embedding returns the k-th output's final normalised hidden state
	// after DecodeEmbeddings (nEmbd values), or nil. The slice is owned by
	// the session and valid until the next Decode or DecodeEmbeddings.
	Embedding(k int) []float32
}

// Pooler folds the embeddings of one sequence, fed in position order,
// into the pooled result. Mean sums in float64 and divides at the end.
type Pooler struct {
	kind Pooling
	sum  []float64
	rows [][]float32 // PoolingNone: every row; CLS, Last: the one kept
	n    int
}

// NewPooler returns an empty pooler. PoolingRank needs a classifier head
// and is refused.
func NewPooler(kind Pooling) (*Pooler, error) {
	switch kind {
	case PoolingNone, PoolingMean, PoolingCLS, PoolingLast:
		return &Pooler{kind: kind}, nil
	}
	return nil, fmt.Errorf("pooling %s is not supported for embeddings", kind)
}

// NeedsRow reports whether the row of position pos of a sequence of n
// tokens contributes, so a caller can ask the session for only those
// outputs.
func (k Pooling) NeedsRow(pos, n int) bool {
	switch k {
	case PoolingCLS:
		return pos == 0
	case PoolingLast:
		return pos == n-1
	}
	return true
}

// Add takes the next contributing row (copied). Every row must have the
// same width.
func (p *Pooler) Add(row []float32) {
	p.n++
	switch p.kind {
	case PoolingMean:
		if p.sum == nil {
			p.sum = make([]float64, len(row))
		}
		for i, v := range row {
			p.sum[i] += float64(v)
		}
	case PoolingNone:
		p.rows = append(p.rows, append([]float32(nil), row...))
	case PoolingCLS:
		if p.n == 1 {
			p.rows = [][]float32{append([]float32(nil), row...)}
		}
	case PoolingLast:
		p.rows = [][]float32{append(p.rows0(len(row)), row...)}
	}
}

// rows0 returns the kept row's storage, emptied, for reuse.
func (p *Pooler) rows0(n int) []float32 {
	if len(p.rows) == 1 && cap(p.rows[0]) >= n {
		return p.rows[0][:0]
	}
	return make([]float32, 0, n)
}

// Rows returns the result: one vector for the pooling types, one per row
// for PoolingNone; nil when no row was added.
func (p *Pooler) Rows() [][]float32 {
	if p.n == 0 {
		return nil
	}
	if p.kind == PoolingMean {
		out := make([]float32, len(p.sum))
		for i, v := range p.sum {
			out[i] = float32(v / float64(p.n))
		}
		return [][]float32{out}
	}
	return p.rows
}

// Normalize writes src scaled by llama.cpp's common_embd_normalize into
// dst (which may be src): norm -1 none, 0 max-absolute scaled to the
// int16 range, 2 Euclidean (the server's default), any other p > 0 the
// p-norm. A zero vector stays zero.
func Normalize(dst, src []float32, norm int) {
	var sum float64
	switch {
	case norm == -1:
		sum = 1
	case norm == 0:
		for _, v := range src {
			sum = max(sum, math.Abs(float64(v)))
		}
		sum /= 32760
	case norm == 2:
		for _, v := range src {
			sum += float64(v) * float64(v)
		}
		sum = math.Sqrt(sum)
	default:
		for _, v := range src {
			sum += math.Pow(math.Abs(float64(v)), float64(norm))
		}
		sum = math.Pow(sum, 1/float64(norm))
	}
	scale := float32(0)
	if sum > 0 {
		scale = float32(1 / sum)
	}
	for i, v := range src {
		dst[i] = v * scale
	}
}

// EmbedSequence evaluates tokens as sequence seq from position 0 (the
// sequence is truncated first) in batches of the session's NBatch and
// returns the pooled embeddings, unnormalised. It is the whole embedding
// path for one sequence, for tools and tests; the server schedules the
// same steps between its other slots.
func EmbedSequence(s Session, seq int, tokens []int32, kind Pooling) ([][]float32, error) {
	e, ok := s.(Embedder)
	if !ok {
		return nil, fmt.Errorf("this model's sessions cannot compute embeddings")
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("no tokens to embed")
	}
	if err := s.Truncate(seq, 0); err != nil {
		return nil, err
	}
	p, err := NewPooler(kind)
	if err != nil {
		return nil, err
	}
	var b Batch
	step := max(s.Options().NBatch, 1)
	for start := 0; start < len(tokens); start += step {
		b.Reset()
		for i, tok := range tokens[start:min(start+step, len(tokens))] {
			pos := start + i
			b.Add(tok, int32(pos), int32(seq), kind.NeedsRow(pos, len(tokens)))
		}
		if err := e.DecodeEmbeddings(&b); err != nil {
			return nil, err
		}
		for k := range s.NumOutputs() {
			p.Add(e.Embedding(k))
		}
	}
	return p.Rows(), nil
}
