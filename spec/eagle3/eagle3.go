// Package eagle3 is the draft-eagle3 strategy: EAGLE-3 drafting with a
// one-block drafter that reads the target's hidden states
// (engine.FeatureDrafterModel), for every sequence of the session.
//
// It keeps mainline llama.cpp's protocol (docs/reference/eagle3.md §3 in
// the shared fixtures): the drafter's KV cache holds, at position P, the
// pair (token at P+1, fused target feature of P), so for every committed
// position but the last it is built from the target's own features; the
// last committed position's feature waits for the token after it. A draft
// seeds with (Last, that feature) and goes on feeding back the drafter's
// own output state with each drafted token, the recurrence EAGLE-3 is
// trained for (so a good drafter is accepted at every depth, not only the
// first). After verification the committed rows (the target's features
// of Last and the accepted drafts) replace what the drafter wrote there.
//
// Work is batched across sequences: committed rows are staged and fused
// together, and one drafter pass writes every sequence's pending pairs
// and seeds every drafting sequence; each further step is one pass over
// the sequences still drafting.
package eagle3

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("draft-eagle3", func(c *spec.Config) (spec.Strategy, error) { return New(c.Eagle3) })
}

var _ spec.HiddenReader = (*Strategy)(nil)

// Strategy is the draft-eagle3 strategy.
type Strategy struct {
	p      spec.Eagle3Params
	dr     engine.FeatureDrafter
	layers []int
	d, in  int     // feature width; fused input width (3·D)
	d2t    []int32 // draft id → target id (nil: the same)
	nCtx   int
	seqs   []*sequence

	// Committed rows waiting to be fused, in commit order; each
	// sequence's rows are contiguous (sequence.staged0, stagedN).
	stage   []float32 // stageCap rows of in values
	nStaged int
	gbuf    []float32 // the staged rows' features after a flush

	batch engine.Batch
	nOut  int       // outputs in the batch
	feats []float32 // the batch's feature rows
	zero  []float32 // the feature of a position the drafter never saw
	jobs  []job

	// observe, when set (tests), sees every draft decode's output: the
	// sequence, the step (0: the seed), the logits over the draft
	// vocabulary and the state fed back.
	observe func(seq, step int, logits, next []float32)
}

// job is one sequence drafting in the current Draft call.
type job struct {
	r    *spec.Request
	st   *sequence
	n    int     // draft cap
	pMin float32 // --spec-draft-p-min, or the request's
	out  int     // the sequence's output row of the last drafter pass
	live bool    // still drafting
	tree bool    // grows a tree (grower) instead of a chain
}

// New checks the drafter against its target and binds it.
func New(p spec.Eagle3Params) (*Strategy, error) {
	if p.Model == nil || p.Target == nil {
		return nil, fmt.Errorf("draft-eagle3 needs an EAGLE-3 drafter (--spec-draft-model / -md) and its target")
	}
	fm, ok := p.Model.(engine.FeatureDrafterModel)
	if !ok {
		return nil, fmt.Errorf("draft-eagle3: the draft model (%s) is not an EAGLE-3 drafter", p.Model.Info().Arch)
	}
	if p.TargetVocab != nil || p.DraftVocab != nil {
		if err := spec.CheckVocab(p.TargetVocab, p.DraftVocab); err != nil {
			return nil, fmt.Errorf("draft-eagle3: %w", err)
		}
	}
	dr, err := fm.NewFeatureDrafter(p.Target, p.Session)
	if err != nil {
		return nil, fmt.Errorf("draft-eagle3: %w", err)
	}
	fi := fm.Features()
	o := dr.Options()
	s := &Strategy{
		p: p, dr: dr, layers: append([]int(nil), fi.Layers...),
		d: fi.NEmbd, in: len(fi.Layers) * fi.TargetEmbd, d2t: dr.DraftVocab(), nCtx: o.NCtx,
		seqs: make([]*sequence, o.NSeq),
	}
	stageCap := min(o.NBatch, max(64, o.NSeq*(p.NMax+1)))
	s.stage = make([]float32, stageCap*s.in)
	s.gbuf = make([]float32, stageCap*s.d)
	s.feats = make([]float32, o.NBatch*s.d)
	s.zero = make([]float32, s.d)
	s.jobs = make([]job, 0, o.NSeq)
	return s, nil
}

func (s *Strategy) Name() string          { return "draft-eagle3" }
func (s *Strategy) Accept(int, int)       {}
func (s *Strategy) Observe(*engine.Batch) {}

// Layers returns the target layers whose inputs the strategy reads, in
// the order a committed row concatenates them.
func (s *Strategy) Layers() []int { return s.layers }

// Taps lists the residual-stream points the strategy reads
// (spec.HiddenReader): the inputs of the drafter's layers.
func (s *Strategy) Taps() []engine.Tap { return Taps(s.layers) }

// Taps converts a drafter's layers (engine.FeatureInfo.Layers) to the
// target session's taps.
func Taps(layers []int) []engine.Tap {
	taps := make([]engine.Tap, len(layers))
	for i, l := range layers {
		taps[i] = engine.LayerInput(l)
	}
	return taps
}

// Begin checks that what the strategy holds for seq is the prompt the
// sequence now holds (a sequence decoded outside speculation, or reused
// by another request, may differ) and re-aligns it if not.
func (s *Strategy) Begin(seq int, prompt []int32) {
	st := s.seq(seq)
	if st == nil || st.matches(prompt) {
		return
	}
	s.resync(st, prompt)
}

// Committed records that positions [pos, pos+len(toks)) of seq hold toks,
// row(k) being the target's fused input of toks[k] (the inputs of
// Layers, concatenated; valid during the call). Whatever the strategy
// held for seq at positions >= pos is dropped.
func (s *Strategy) Committed(seq, pos int, toks []int32, row func(k int) []float32) {
	st := s.seq(seq)
	if st == nil || len(toks) == 0 {
		return
	}
	if st.stagedN > 0 && (pos != len(st.toks) || st.staged0+st.stagedN != s.nStaged) {
		s.flush(nil) // keep each sequence's staged rows contiguous and at the end
	}
	st.cut(pos, toks[0])
	for k, tok := range toks {
		if s.nStaged == len(s.stage)/s.in {
			s.flush(nil)
		}
		st.toks = append(st.toks, tok)
		if st.stagedN == 0 {
			st.staged0 = s.nStaged
		}
		copy(s.stage[s.nStaged*s.in:(s.nStaged+1)*s.in], row(k))
		s.nStaged++
		st.stagedN++
	}
}

// seq returns the state of sequence i, nil when the drafter was not sized
// for it.
func (s *Strategy) seq(i int) *sequence {
	if i < 0 || i >= len(s.seqs) {
		return nil
	}
	if s.seqs[i] == nil {
		s.seqs[i] = newSequence(i, s.d, s.nCtx)
	}
	return s.seqs[i]
}
