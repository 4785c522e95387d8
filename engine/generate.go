package engine

import (
	"fmt"
	"time"

	"github.com/waggle-llm/waggle/engine/sample"
)

// Timings reports a generation's counts and durations, shaped like
// llama.cpp's timings object.
type Timings struct {
	PromptN     int
	PromptMS    float64
	PredictedN  int
	PredictedMS float64
}

// PromptPerSecond returns prompt tokens per second.
func (t Timings) PromptPerSecond() float64 { return perSecond(t.PromptN, t.PromptMS) }

// PredictedPerSecond returns generated tokens per second.
func (t Timings) PredictedPerSecond() float64 { return perSecond(t.PredictedN, t.PredictedMS) }

func perSecond(n int, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return float64(n) / ms * 1000
}

// Generator runs the plain decode loop for one sequence of a session:
// prefill the prompt in NBatch chunks, then sample and decode one token at a
// time. Its batch is reused, so a warm step allocates nothing.
type Generator struct {
	Sess    Session
	Sampler *sample.Sampler
	Seq     int32
	// IsEOG reports end-of-generation tokens (nil: never stop early).
	IsEOG func(int32) bool
	batch Batch
}

// Prefill evaluates tokens after the sequence's current end and leaves the
// logits of the last one as output 0.
func (g *Generator) Prefill(tokens []int32) error {
	if len(tokens) == 0 {
		return fmt.Errorf("engine: empty prompt")
	}
	nb := g.Sess.Options().NBatch
	for start := 0; start < len(tokens); start += nb {
		end := min(start+nb, len(tokens))
		g.batch.Reset()
		pos := int32(g.Sess.SeqLen(int(g.Seq)))
		for i, t := range tokens[start:end] {
			g.batch.Add(t, pos+int32(i), g.Seq, start+i == len(tokens)-1)
		}
		if err := g.Sess.Decode(&g.batch); err != nil {
			return err
		}
	}
	return nil
}

// Next samples the next token from the last logits and records it for the
// penalties. It does not evaluate the token; Feed does.
func (g *Generator) Next() int32 {
	tok := g.Sampler.Sample(g.Sess.Logits(g.Sess.NumOutputs() - 1))
	g.Sampler.Accept(tok)
	return tok
}

// Feed evaluates one token at the end of the sequence, leaving its logits as
// the only output.
func (g *Generator) Feed(tok int32) error {
	g.batch.Reset()
	g.batch.Add(tok, int32(g.Sess.SeqLen(int(g.Seq))), g.Seq, true)
	return g.Sess.Decode(&g.batch)
}

// Generate prefills prompt, then produces up to n tokens, calling emit for
// each (emit returns false to stop). It stops after an end-of-generation
// token (which is emitted) or when the context is full, which is not an
// error.
func (g *Generator) Generate(prompt []int32, n int, emit func(tok int32) bool) (Timings, error) {
	var tm Timings
	t0 := time.Now()
	for _, t := range prompt {
		g.Sampler.AcceptPrompt(t)
	}
	if err := g.Prefill(prompt); err != nil {
		return tm, err
	}
	tm.PromptN, tm.PromptMS = len(prompt), msSince(t0)
	t1 := time.Now()
	for tm.PredictedN < n {
		tok := g.Next()
		tm.PredictedN++
		if !emit(tok) || (g.IsEOG != nil && g.IsEOG(tok)) || tm.PredictedN == n {
			break
		}
		if err := g.Feed(tok); err != nil {
			if isContextFull(err) {
				break
			}
			tm.PredictedMS = msSince(t1)
			return tm, err
		}
	}
	tm.PredictedMS = msSince(t1)
	return tm, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
