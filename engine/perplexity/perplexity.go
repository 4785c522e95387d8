// Package perplexity scores a model on a token stream the way
// llama-perplexity does, so the two tools' numbers can be compared line for
// line: the stream is cut into chunks of NCtx tokens, each chunk is
// evaluated from an empty cache (its first token replaced by BOS when the
// vocabulary adds one), and the negative log-likelihood of every token in
// the second half of the chunk is accumulated (the first half only gives
// the model context). PPL = exp(mean NLL); its error is llama.cpp's
// (standard error of the mean NLL times PPL).
//
// The package also reads and writes llama-perplexity's log-probability
// files (--kl-divergence-base), so a run with one KV cache type, model file
// or engine can be compared with a base run of another by KL divergence;
// see base.go.
package perplexity

import (
	"errors"
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/engine"
)

// Options chooses how the stream is evaluated.
type Options struct {
	NCtx   int   // tokens per chunk (llama-perplexity's -c); the session needs at least this context
	NBatch int   // tokens per Decode call (at most NCtx)
	Chunks int   // chunks to evaluate; 0 or more than available: all
	AddBOS bool  // replace each chunk's first token with BOS, as llama.cpp does when the vocabulary adds one
	BOS    int32 // the BOS token id
}

// Stats accumulates negative log-likelihoods.
type Stats struct {
	Count     int
	NLL, NLL2 float64
}

func (s *Stats) add(nll float64) {
	s.Count++
	s.NLL += nll
	s.NLL2 += nll * nll
}

// PPL returns exp(mean NLL) and its error estimate as llama-perplexity
// prints them ("PPL = x +/- err"); err is NaN with fewer than two tokens.
func (s Stats) PPL() (ppl, err float64) {
	if s.Count == 0 {
		return math.NaN(), math.NaN()
	}
	mean := s.NLL / float64(s.Count)
	ppl = math.Exp(mean)
	v := s.NLL2/float64(s.Count) - mean*mean
	if s.Count < 2 || v <= 0 {
		return ppl, math.NaN()
	}
	return ppl, math.Sqrt(v/float64(s.Count-1)) * ppl
}

// Scorer receives the logits of every scored position: logits predicts
// next, the token that follows. Chunk and i say where it is.
type Scorer interface {
	Score(chunk, i int, logits []float32, next int32) error
}

// ChunkCount returns how many chunks of nCtx tokens Run evaluates.
func ChunkCount(nTokens int, o Options) int {
	if o.NCtx <= 0 {
		return 0
	}
	n := nTokens / o.NCtx
	if o.Chunks > 0 && o.Chunks < n {
		n = o.Chunks
	}
	return n
}

// ErrTooShort is returned when the stream has fewer than 2·NCtx tokens,
// llama-perplexity's minimum.
var ErrTooShort = errors.New("perplexity: the text needs at least 2·ctx tokens")

// Run evaluates the chunks on sequence 0 of s, calls sc for every scored
// position (the tokens from NCtx/2 to NCtx-2 of each chunk) and after each
// chunk calls progress (may be nil) with the chunk count so far.
func Run(s engine.Session, tokens []int32, o Options, sc Scorer, progress func(chunks int)) error {
	if o.NCtx < 4 || o.NBatch <= 0 {
		return fmt.Errorf("perplexity: ctx %d must be >= 4 and batch %d > 0", o.NCtx, o.NBatch)
	}
	if len(tokens) < 2*o.NCtx {
		return fmt.Errorf("%w: %d tokens with ctx %d", ErrTooShort, len(tokens), o.NCtx)
	}
	if opt := s.Options(); opt.NCtx < o.NCtx {
		return fmt.Errorf("perplexity: the session's context %d is smaller than the chunk size %d", opt.NCtx, o.NCtx)
	}
	nBatch := min(o.NBatch, o.NCtx, s.Options().NBatch)
	var b engine.Batch
	for c := range ChunkCount(len(tokens), o) {
		if err := runChunk(s, &b, tokens[c*o.NCtx:(c+1)*o.NCtx], c, nBatch, o, sc); err != nil {
			return err
		}
		if progress != nil {
			progress(c + 1)
		}
	}
	return nil
}

// runChunk evaluates one chunk from an empty sequence in batches of nBatch.
func runChunk(s engine.Session, b *engine.Batch, chunk []int32, c, nBatch int, o Options, sc Scorer) error {
	if err := s.Truncate(0, 0); err != nil {
		return err
	}
	first := o.NCtx / 2
	for start := 0; start < o.NCtx; start += nBatch {
		end := min(start+nBatch, o.NCtx)
		b.Reset()
		for pos := start; pos < end; pos++ {
			tok := chunk[pos]
			if o.AddBOS && pos == 0 {
				tok = o.BOS
			}
			b.Add(tok, int32(pos), 0, pos >= first && pos < o.NCtx-1)
		}
		if err := s.Decode(b); err != nil {
			return fmt.Errorf("perplexity: chunk %d: %w", c+1, err)
		}
		k := 0
		for pos := max(start, first); pos < min(end, o.NCtx-1); pos++ {
			if err := sc.Score(c, pos-first, s.Logits(k), chunk[pos+1]); err != nil {
				return err
			}
			k++
		}
	}
	return nil
}

// logSumExp returns the maximum logit, its index and log Σ exp(l - max),
// summed in float64 over float32 exponentials as llama.cpp does.
func logSumExp(logits []float32) (maxLogit float32, imax int, lse float64) {
	maxLogit = logits[0]
	for i, l := range logits {
		if l > maxLogit {
			maxLogit, imax = l, i
		}
	}
	sum := 0.0
	for _, l := range logits {
		sum += float64(float32(math.Exp(float64(l - maxLogit))))
	}
	return maxLogit, imax, math.Log(sum)
}

// NLL returns -log softmax(logits)[tok].
func NLL(logits []float32, tok int32) float64 {
	m, _, lse := logSumExp(logits)
	return float64(m) + float64(float32(lse)) - float64(logits[tok])
}

// PlainScorer accumulates the NLL of every scored position.
type PlainScorer struct{ Stats Stats }

// Score implements Scorer.
func (p *PlainScorer) Score(_, _ int, logits []float32, next int32) error {
	if int(next) < 0 || int(next) >= len(logits) {
		return fmt.Errorf("perplexity: token %d outside the vocabulary of %d", next, len(logits))
	}
	p.Stats.add(NLL(logits, next))
	return nil
}
