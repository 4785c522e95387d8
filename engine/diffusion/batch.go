package diffusion

import (
	"fmt"

	"github.com/waggle-llm/waggle/engine"
)

// Batch denoises several runs together: each step, one Denoise evaluates
// the canvases of every run that needs a forward, so the weights are read
// once for all of them. Each run keeps its own RNG streams and its own
// sequence in the Denoiser, so its result does not depend on what else is
// in the batch. Its scratch is reused across steps.
type Batch struct {
	d        engine.Denoiser
	canvases []engine.Canvas
	runs     []*Run                           // the runs of canvases, in order
	visitFn  func(k, i int, logits []float32) // b.visit, bound once
}

// NewBatch makes a batch driver over d.
func NewBatch(d engine.Denoiser) *Batch {
	n := d.Options().NSeq
	b := &Batch{d: d, canvases: make([]engine.Canvas, 0, n), runs: make([]*Run, 0, n)}
	b.visitFn = b.visit
	return b
}

// Step advances every run of runs by one denoising step; run k uses the
// Denoiser's sequence seqs[k]. Runs that are done are skipped. It returns
// how many runs took a step (0 when all are done).
func (b *Batch) Step(runs []*Run, seqs []int) (int, error) {
	if len(runs) != len(seqs) {
		return 0, fmt.Errorf("diffusion: %d runs for %d sequences", len(runs), len(seqs))
	}
	b.canvases, b.runs = b.canvases[:0], b.runs[:0]
	for k, r := range runs {
		if !r.Prepare() {
			continue
		}
		if p, changed := r.Prefix(); changed {
			if err := b.d.SetPrefix(seqs[k], p); err != nil {
				return 0, err
			}
		}
		b.canvases = append(b.canvases, r.Canvas(seqs[k]))
		b.runs = append(b.runs, r)
	}
	if len(b.runs) == 0 {
		return 0, nil
	}
	err := b.d.Denoise(b.canvases, b.visitFn)
	if err != nil {
		return 0, err
	}
	for _, r := range b.runs {
		r.Finish()
	}
	return len(b.runs), nil
}

func (b *Batch) visit(k, i int, logits []float32) { b.runs[k].Observe(i, logits) }

// Generate runs r to the end on sequence seq of d, one step at a time.
// progress, when not nil, is called after every step.
func Generate(d engine.Denoiser, r *Run, seq int, progress func(*Run)) error {
	b := NewBatch(d)
	runs, seqs := []*Run{r}, []int{seq}
	for {
		n, err := b.Step(runs, seqs)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if progress != nil {
			progress(r)
		}
	}
}
