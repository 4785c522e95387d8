package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/perplexity"
)

// perplexityCmd is llama-perplexity's default mode: PPL over chunks of -c
// tokens of a text, scoring the second half of each chunk; with
// --kl-divergence-base it also writes (or, with --kl-divergence, reads and
// compares against) llama-perplexity's log-probability file.
type perplexityCmd struct {
	modelFlags
	File      string `short:"f" help:"Text file to evaluate (not needed with --kl-divergence: the base file holds the tokens)." type:"path"`
	Chunks    int    `name:"chunks" help:"Chunks to evaluate (-1: all)." default:"-1"`
	KLBase    string `name:"kl-divergence-base" help:"Log-probability file: written by a base run, read by --kl-divergence (llama-perplexity's format)." type:"path"`
	KLCompare bool   `name:"kl-divergence" help:"Compare against the --kl-divergence-base file instead of writing it."`
}

// defaultPerplexityCtx is the chunk size when -c is 0 (llama.cpp users
// almost always pass -c 512; the model's training context is often far
// larger than its evaluation texts).
const defaultPerplexityCtx = 512

func (c *perplexityCmd) Run() error {
	if c.KLCompare && c.KLBase == "" {
		return errors.New("--kl-divergence needs --kl-divergence-base FILE (a base run's output)")
	}
	if c.CtxSize == 0 {
		c.CtxSize = defaultPerplexityCtx
	}
	var base *perplexity.Base
	if c.KLCompare {
		b, err := perplexity.OpenBase(c.KLBase)
		if err != nil {
			return err
		}
		defer b.Close()
		base, c.CtxSize = b, b.NCtx
	}
	l, sess, err := c.open()
	if err != nil {
		return err
	}
	defer l.Close()
	o := perplexity.Options{NCtx: c.CtxSize, NBatch: c.BatchSize, Chunks: max(c.Chunks, 0), AddBOS: l.Tokenizer.AddBOS(), BOS: l.Tokenizer.BOS()}
	if base != nil {
		return c.compare(sess, l.Model.Info().NVocab, base, o)
	}
	toks, err := c.tokens(l)
	if err != nil {
		return err
	}
	return c.evaluate(sess, l.Model.Info().NVocab, toks, o)
}

// tokens reads and tokenizes --file as llama-perplexity does (BOS when the
// vocabulary adds one, special-token text treated as plain text).
func (c *perplexityCmd) tokens(l *engine.Loaded) ([]int32, error) {
	if c.File == "" {
		return nil, errors.New("give the text to evaluate with -f FILE")
	}
	f, err := os.Open(c.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxInput+1))
	if err != nil {
		return nil, err
	}
	if len(text) > maxInput {
		return nil, fmt.Errorf("%s is larger than %d bytes", c.File, maxInput)
	}
	return l.Tokenizer.Encode(string(text), true, false), nil
}

// evaluate prints the running PPL per chunk and the final estimate, and
// writes the base file when asked.
func (c *perplexityCmd) evaluate(sess engine.Session, nVocab int, toks []int32, o perplexity.Options) error {
	n := perplexity.ChunkCount(len(toks), o)
	fmt.Fprintf(stderr, "perplexity: %d tokens, %d chunks, n_ctx=%d, batch=%d, cache %s/%s\n", len(toks), n, o.NCtx, min(o.NBatch, o.NCtx), c.CacheTypeK, c.CacheTypeV)
	var sc perplexity.Scorer
	var stats *perplexity.Stats
	var bw *perplexity.BaseWriter
	if c.KLBase != "" {
		f, err := os.Create(c.KLBase)
		if err != nil {
			return err
		}
		defer f.Close()
		if bw, err = perplexity.NewBaseWriter(f, o.NCtx, nVocab, n, toks); err != nil {
			return err
		}
		sc, stats = bw, &bw.Stats
	} else {
		p := &perplexity.PlainScorer{}
		sc, stats = p, &p.Stats
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	start := time.Now()
	err := perplexity.Run(sess, toks, o, sc, func(k int) {
		ppl, _ := stats.PPL()
		fmt.Fprintf(out, "[%d]%.4f,", k, ppl)
		out.Flush()
	})
	if err != nil {
		return err
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	ppl, e := stats.PPL()
	fmt.Fprintf(out, "\nFinal estimate: PPL = %.4f +/- %.5f\n", ppl, e)
	fmt.Fprintf(stderr, "perplexity: %d tokens scored in %.2f s\n", stats.Count, time.Since(start).Seconds())
	return nil
}

// compare scores the base file's tokens and prints llama-perplexity's
// KL-divergence summary.
func (c *perplexityCmd) compare(sess engine.Session, nVocab int, base *perplexity.Base, o perplexity.Options) error {
	if v := nVocab; v != base.NVocab {
		return fmt.Errorf("%s was made with a %d-token vocabulary, the model has %d", c.KLBase, base.NVocab, v)
	}
	o.Chunks = 0
	k := perplexity.NewKLD(base)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	err := perplexity.Run(sess, base.Tokens, o, k, func(n int) {
		ppl, _ := k.Q.PPL()
		fmt.Fprintf(out, "[%d]%.4f,", n, ppl)
		out.Flush()
	})
	if err != nil {
		return err
	}
	pq, eq := k.Q.PPL()
	pb, eb := k.BaseNLL.PPL()
	mean, se, median, p99, mx := k.Summary()
	fmt.Fprintf(out, "\n====== Perplexity statistics ======\n")
	fmt.Fprintf(out, "Mean PPL(Q)                   : %10.6f ± %10.6f\n", pq, eq)
	fmt.Fprintf(out, "Mean PPL(base)                : %10.6f ± %10.6f\n", pb, eb)
	fmt.Fprintf(out, "Mean ln(PPL(Q)/PPL(base))     : %10.6f\n", math.Log(pq/pb))
	fmt.Fprintf(out, "\n====== KL divergence statistics ======\n")
	fmt.Fprintf(out, "Mean    KLD: %10.6f ± %10.6f\n", mean, se)
	fmt.Fprintf(out, "Maximum KLD: %10.6f\n", mx)
	fmt.Fprintf(out, "99.0%%   KLD: %10.6f\n", p99)
	fmt.Fprintf(out, "Median  KLD: %10.6f\n", median)
	fmt.Fprintf(out, "\n====== Token probability statistics ======\n")
	fmt.Fprintf(out, "Max Δp: %6.3f %%\n", 100*k.MaxPDiff)
	fmt.Fprintf(out, "Same top p: %6.3f ± %5.3f %%\n", 100*sameTop(k), 100*sameTopErr(k))
	return nil
}

func sameTop(k *perplexity.KLD) float64 { return float64(k.SameTop) / float64(max(1, k.Q.Count)) }

func sameTopErr(k *perplexity.KLD) float64 {
	p, n := sameTop(k), float64(max(2, k.Q.Count))
	return math.Sqrt(p * (1 - p) / (n - 1))
}
