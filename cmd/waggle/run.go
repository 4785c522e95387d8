package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/spec"
)

// runCmd generates text, streaming it to stdout like llama-cli.
type runCmd struct {
	modelFlags
	samplingFlags
	grammarFlags
	specFlags
	Prompt   string `short:"p" help:"Prompt text."`
	Tokens   string `help:"Prompt as comma-separated token ids instead of text."`
	NPredict int    `short:"n" name:"n-predict" help:"Tokens to generate (-1: until end of generation or a full context)." default:"128"`
	JSON     bool   `name:"json" help:"Print one JSON object with prompt tokens, generated tokens, text and timings."`
}

// runResult is the --json output.
type runResult struct {
	PromptTokens []int32     `json:"prompt_tokens"`
	Tokens       []int32     `json:"tokens"`
	Text         string      `json:"text"`
	Timings      timingsJSON `json:"timings"`
}

// timingsJSON mirrors llama.cpp's timings object.
type timingsJSON struct {
	PromptN            int     `json:"prompt_n"`
	PromptMS           float64 `json:"prompt_ms"`
	PromptPerSecond    float64 `json:"prompt_per_second"`
	PredictedN         int     `json:"predicted_n"`
	PredictedMS        float64 `json:"predicted_ms"`
	PredictedPerSecond float64 `json:"predicted_per_second"`
	DraftN             int     `json:"draft_n,omitempty"`
	DraftNAccepted     int     `json:"draft_n_accepted,omitempty"`
}

func toTimingsJSON(t engine.Timings) timingsJSON {
	return timingsJSON{
		PromptN: t.PromptN, PromptMS: t.PromptMS, PromptPerSecond: t.PromptPerSecond(),
		PredictedN: t.PredictedN, PredictedMS: t.PredictedMS, PredictedPerSecond: t.PredictedPerSecond(),
	}
}

func (c *runCmd) Run() error {
	taps, depth, err := c.prepare()
	if err != nil {
		return err
	}
	defer c.closeDraft()
	l, sess, err := c.openWith(taps, depth)
	if err != nil {
		return err
	}
	defer l.Close()
	smp, err := c.sampler(l, sess.Options().NCtx)
	if err != nil {
		return err
	}
	if err := c.constrain(l, smp); err != nil {
		return err
	}
	prompt, err := promptTokens(l, c.Prompt, c.Tokens)
	if err != nil {
		return err
	}
	n := c.NPredict
	if n < 0 {
		n = sess.Options().NCtx
	}
	if len(prompt) >= sess.Options().NCtx {
		return fmt.Errorf("prompt has %d tokens, the context holds %d", len(prompt), sess.Options().NCtx)
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	tok := l.Tokenizer
	dec := tok.NewStreamDecoder(false)
	var generated []int32
	if !c.JSON && c.Tokens == "" {
		fmt.Fprint(out, c.Prompt)
		out.Flush()
	}
	emit := func(t int32) bool {
		generated = append(generated, t)
		if !c.JSON && !tok.IsEOG(t) {
			fmt.Fprint(out, dec.Add(t))
			out.Flush()
		}
		return true
	}
	tm, draft, err := c.generate(l, sess, smp, prompt, n, emit)
	if err != nil {
		return err
	}
	if c.JSON {
		tj := toTimingsJSON(tm)
		tj.DraftN, tj.DraftNAccepted = draft.n, draft.accepted
		return json.NewEncoder(out).Encode(runResult{
			PromptTokens: prompt, Tokens: generated, Text: generatedText(l, generated), Timings: tj,
		})
	}
	fmt.Fprint(out, dec.Flush(), "\n")
	fmt.Fprintf(stderr, "\nprompt: %d tokens in %.1f ms (%.2f t/s); generated: %d tokens in %.1f ms (%.2f t/s)\n",
		tm.PromptN, tm.PromptMS, tm.PromptPerSecond(), tm.PredictedN, tm.PredictedMS, tm.PredictedPerSecond())
	return nil
}

// draftCounts are the speculative totals of one run.
type draftCounts struct{ n, accepted int }

// generate runs plain decoding, or speculative decoding when --spec-type or
// a draft model asks for it, printing llama.cpp's statistics lines.
func (c *runCmd) generate(l *engine.Loaded, sess engine.Session, smp *sample.Sampler, prompt []int32, n int, emit func(int32) bool) (engine.Timings, draftCounts, error) {
	sp, closeSpec, err := c.speculator(l, sess, c.Temp)
	if err != nil {
		return engine.Timings{}, draftCounts{}, err
	}
	defer closeSpec()
	if sp == nil {
		g := &engine.Generator{Sess: sess, Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
		tm, err := g.Generate(prompt, n, emit)
		return tm, draftCounts{}, err
	}
	sl := &spec.Slot{Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
	tm, err := sp.Generate(sl, prompt, n, emit)
	for _, st := range sp.Chain.Stats() {
		fmt.Fprintln(stderr, st.Snapshot())
	}
	for _, line := range sp.Chain.Summaries() {
		fmt.Fprintln(stderr, line)
	}
	if sl.SampledAccepted+sl.SampledResidual > 0 {
		fmt.Fprintf(stderr, "rejection sampling: accepted=%d residual=%d\n", sl.SampledAccepted, sl.SampledResidual)
	}
	fmt.Fprintf(stderr, "draft acceptance rate = %.5f (%d accepted / %d generated)\n",
		float64(sl.DraftAccepted)/float64(max(sl.DraftN, 1)), sl.DraftAccepted, sl.DraftN)
	return tm, draftCounts{sl.DraftN, sl.DraftAccepted}, err
}

// generatedText detokenizes the generated ids, leaving out an
// end-of-generation token, as llama.cpp's examples print them.
func generatedText(l *engine.Loaded, ids []int32) string {
	if n := len(ids); n > 0 && l.Tokenizer.IsEOG(ids[n-1]) {
		ids = ids[:n-1]
	}
	var sb strings.Builder
	for _, id := range ids {
		sb.WriteString(l.Tokenizer.Piece(id, false))
	}
	return sb.String()
}

// promptTokens tokenizes the prompt text (with BOS when the vocabulary adds
// one) or parses --tokens.
func promptTokens(l *engine.Loaded, text, ids string) ([]int32, error) {
	if ids != "" {
		return parseTokenList(ids)
	}
	if text == "" {
		return nil, fmt.Errorf("give a prompt with -p or --tokens")
	}
	toks := l.Tokenizer.Encode(text, true, true)
	if len(toks) == 0 {
		return nil, fmt.Errorf("the prompt tokenized to nothing")
	}
	return toks, nil
}

// sampler builds the run's sampler from the sampling flags.
func (f *samplingFlags) sampler(l *engine.Loaded, nCtx int) (*sample.Sampler, error) {
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	p.NCtx = nCtx
	fac := &samplerFactory{vocab: l.Tokenizer}
	if p.IgnoreEOS {
		p.LogitBias = append(p.LogitBias, fac.eogBias()...)
	}
	sp, err := fac.sampleParams(p)
	if err != nil {
		return nil, err
	}
	return sample.New(sp, l.Model.Info().NVocab)
}
