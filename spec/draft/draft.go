// Package draft is llama.cpp's draft-simple: a small model with the target's
// vocabulary, run in its own engine.Session, drafts greedily (the top
// candidate of its top-10 distribution) while its confidence stays at or
// above PMin.
package draft

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("draft-simple", func(c *spec.Config) (spec.Strategy, error) { return New(c.Draft) })
}

// Draft is the draft-model strategy. Its session mirrors the target's
// sequences lazily: before drafting for a sequence it keeps the longest
// common prefix of what its cache holds and the sequence's context,
// truncates the rest and decodes the missing tokens in one batch. Drafted
// tokens stay in its cache and are kept next time if accepted, so accepted
// drafts are not decoded twice (llama.cpp re-decodes them).
type Draft struct {
	p      spec.DraftParams
	sess   engine.Session
	smp    *sample.Sampler
	nVocab int // drafted ids stay below the smaller vocabulary
	held   [][]int32
	batch  engine.Batch
}

// New checks the vocabularies and opens the draft session.
func New(p spec.DraftParams) (*Draft, error) {
	if p.Model == nil {
		return nil, fmt.Errorf("draft-simple needs a draft model (--spec-draft-model / -md)")
	}
	if err := spec.CheckVocab(p.Target, p.Draft); err != nil {
		return nil, err
	}
	sess, err := p.Model.NewSession(p.Session)
	if err != nil {
		return nil, fmt.Errorf("draft model session: %w", err)
	}
	sp := sample.DefaultParams()
	sp.Temp, sp.TopK, sp.TopP, sp.MinP, sp.Seed = 1, 10, 1, 0, 0
	nv := p.Model.Info().NVocab
	smp, err := sample.New(sp, nv)
	if err != nil {
		return nil, err
	}
	return &Draft{p: p, sess: sess, smp: smp, nVocab: min(nv, p.Target.NVocab())}, nil
}

func (d *Draft) Name() string          { return "draft-simple" }
func (d *Draft) Observe(*engine.Batch) {}
func (d *Draft) Accept(int, int)       {}
func (d *Draft) Begin(int, []int32)    {}

func (d *Draft) seq(i int) *[]int32 {
	for i >= len(d.held) {
		d.held = append(d.held, nil)
	}
	return &d.held[i]
}

func (d *Draft) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		if err := d.sync(r); err != nil {
			continue // the draft model cannot follow (context full): no draft
		}
		d.draft(r)
	}
}

// sync makes the draft cache hold exactly History+Last for r.Seq, with the
// logits of Last as the last output.
func (d *Draft) sync(r *spec.Request) error {
	held := d.seq(r.Seq)
	keep := 0
	for keep < len(*held) && keep < r.Len()-1 && (*held)[keep] == r.Context(keep) {
		keep++
	}
	keep = min(keep, d.sess.SeqLen(r.Seq))
	if err := d.sess.Truncate(r.Seq, keep); err != nil {
		return err
	}
	*held = (*held)[:keep]
	nb := d.sess.Options().NBatch
	for start := keep; start < r.Len(); start += nb {
		end := min(start+nb, r.Len())
		d.batch.Reset()
		for i := start; i < end; i++ {
			d.batch.Add(r.Context(i), int32(i), int32(r.Seq), i == r.Len()-1)
		}
		if err := d.sess.Decode(&d.batch); err != nil {
			*held = (*held)[:0]
			d.sess.Truncate(r.Seq, 0)
			return err
		}
		for i := start; i < end; i++ {
			*held = append(*held, r.Context(i))
		}
	}
	return nil
}

// draft decodes greedily from the draft model until NMax, low confidence
// or a full context.
func (d *Draft) draft(r *spec.Request) {
	held := d.seq(r.Seq)
	nMax := min(r.NMax, d.p.NMax)
	for len(r.Draft) < nMax {
		c := d.smp.Distribution(d.sess.Logits(d.sess.NumOutputs() - 1))
		top := c[0]
		if top.P < d.p.PMin || int(top.ID) >= d.nVocab {
			break
		}
		r.Draft = append(r.Draft, top.ID)
		if len(r.Draft) == nMax {
			break
		}
		d.batch.Reset()
		d.batch.Add(top.ID, int32(len(*held)), int32(r.Seq), true)
		if d.sess.Decode(&d.batch) != nil {
			break
		}
		*held = append(*held, top.ID)
	}
	if len(r.Draft) < d.p.NMin {
		r.Draft = r.Draft[:0]
	}
}
