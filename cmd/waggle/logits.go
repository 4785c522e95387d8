package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/waggle-llm/waggle/engine"
)

// logitsCmd evaluates a token sequence as one batch and prints, for every
// position, the top logits, the maximum and the log-sum-exp over the whole
// vocabulary: the shape of the llama.cpp goldens, so any engine can be
// checked against another.
type logitsCmd struct {
	modelFlags
	Tokens string `help:"Comma-separated token ids."`
	Prompt string `short:"p" help:"Text to tokenize (with BOS when the vocabulary adds one) instead of --tokens."`
	Top    int    `help:"Logits to print per position." default:"20"`
	JSON   bool   `name:"json" help:"Print JSON (the default and only format today; kept for symmetry with run)."`
}

// positionLogits is one position of the output.
type positionLogits struct {
	I   int      `json:"i"`
	Top [][2]any `json:"top"` // [id, logit]
	Max float64  `json:"max"`
	LSE float64  `json:"lse"`
}

func (c *logitsCmd) Run() error {
	if c.Top <= 0 {
		return fmt.Errorf("--top must be positive")
	}
	l, sess, err := c.open()
	if err != nil {
		return err
	}
	defer l.Close()
	toks, err := promptTokens(l, c.Prompt, c.Tokens)
	if err != nil {
		return err
	}
	if len(toks) > sess.Options().NBatch || len(toks) > sess.Options().NCtx {
		return fmt.Errorf("%d tokens exceed the batch (%d) or context (%d) size; raise -b/-c", len(toks), sess.Options().NBatch, sess.Options().NCtx)
	}
	positions, err := batchLogits(sess, toks, c.Top)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	return json.NewEncoder(out).Encode(map[string]any{"tokens": toks, "positions": positions})
}

// batchLogits decodes toks as one batch with every position as an output.
func batchLogits(sess engine.Session, toks []int32, top int) ([]positionLogits, error) {
	var b engine.Batch
	for i, t := range toks {
		b.Add(t, int32(i), 0, true)
	}
	if err := sess.Decode(&b); err != nil {
		return nil, err
	}
	out := make([]positionLogits, len(toks))
	for i := range toks {
		out[i] = summarize(i, sess.Logits(i), top)
	}
	return out, nil
}

// f32 prints a float32 with the fewest digits that round-trip.
type f32 float32

func (v f32) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte(`null`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 32), nil
}

// summarize computes the top-k pairs (ties to the lower id), max and
// log-sum-exp (in float64) of one logits row.
func summarize(i int, logits []float32, top int) positionLogits {
	idx := make([]int, len(logits))
	for j := range idx {
		idx[j] = j
	}
	sort.SliceStable(idx, func(a, b int) bool { return logits[idx[a]] > logits[idx[b]] })
	top = min(top, len(idx))
	p := positionLogits{I: i, Top: make([][2]any, top), Max: math.Inf(-1)}
	for j := range top {
		p.Top[j] = [2]any{idx[j], f32(logits[idx[j]])}
	}
	for _, v := range logits {
		p.Max = math.Max(p.Max, float64(v))
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v) - p.Max)
	}
	p.LSE = p.Max + math.Log(sum)
	return p
}
