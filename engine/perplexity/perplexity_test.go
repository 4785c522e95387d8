package perplexity

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/all"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// storyTokens loads stories260K (a real model) and tokenizes the test story
// as llama-perplexity would.
func storyTokens(t *testing.T) (*engine.Loaded, []int32) {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	text, err := os.ReadFile("testdata/story.txt")
	if err != nil {
		t.Fatal(err)
	}
	return l, l.Tokenizer.Encode(string(text), true, false)
}

func newSession(t *testing.T, l *engine.Loaded, nCtx, nBatch int, typ kvcache.Type) engine.Session {
	t.Helper()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: nCtx, NBatch: nBatch, TypeK: typ, TypeV: typ, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRunMatchesDirectEvaluation: Run's statistics equal an independent
// evaluation (every chunk decoded in one batch from an empty cache, BOS
// first, float64 log-softmax of positions n/2 .. n-2), whatever the batch
// size Run uses.
func TestRunMatchesDirectEvaluation(t *testing.T) {
	const nCtx = 128
	l, toks := storyTokens(t)
	o := Options{NCtx: nCtx, AddBOS: l.Tokenizer.AddBOS(), BOS: l.Tokenizer.BOS()}
	n := ChunkCount(len(toks), o)
	if n < 3 {
		t.Fatalf("story gives only %d chunks of %d", n, nCtx)
	}
	ref := newSession(t, l, nCtx, nCtx, kvcache.F32)
	var want Stats
	var b engine.Batch
	for c := range n {
		chunk := toks[c*nCtx : (c+1)*nCtx]
		_ = ref.Truncate(0, 0)
		b.Reset()
		for i, tok := range chunk {
			if i == 0 && o.AddBOS {
				tok = o.BOS
			}
			b.Add(tok, int32(i), 0, true)
		}
		if err := ref.Decode(&b); err != nil {
			t.Fatal(err)
		}
		for i := nCtx / 2; i < nCtx-1; i++ {
			lg := ref.Logits(i)
			m := math.Inf(-1)
			for _, v := range lg {
				m = math.Max(m, float64(v))
			}
			sum := 0.0
			for _, v := range lg {
				sum += math.Exp(float64(v) - m)
			}
			want.add(m + math.Log(sum) - float64(lg[chunk[i+1]]))
		}
	}
	for _, batch := range []int{nCtx, 50, 7} {
		o.NBatch = batch
		var p PlainScorer
		chunks := 0
		if err := Run(newSession(t, l, nCtx, batch, kvcache.F32), toks, o, &p, func(k int) { chunks = k }); err != nil {
			t.Fatal(err)
		}
		if chunks != n || p.Stats.Count != want.Count {
			t.Fatalf("batch %d: %d chunks, %d tokens; want %d, %d", batch, chunks, p.Stats.Count, n, want.Count)
		}
		got, _ := p.Stats.PPL()
		ref, _ := want.PPL()
		if math.Abs(got-ref) > 1e-4*ref {
			t.Fatalf("batch %d: PPL %.6f, direct evaluation %.6f", batch, got, ref)
		}
		t.Logf("batch %d: PPL %.4f over %d tokens", batch, got, p.Stats.Count)
	}
}

// TestRunRejectsShortText: fewer than 2·ctx tokens is llama-perplexity's
// error, not a silent zero.
func TestRunRejectsShortText(t *testing.T) {
	l, toks := storyTokens(t)
	err := Run(newSession(t, l, 1024, 64, kvcache.F32), toks[:100], Options{NCtx: 64, NBatch: 64}, &PlainScorer{}, nil)
	if !errors.Is(err, ErrTooShort) {
		t.Fatalf("got %v, want ErrTooShort", err)
	}
}

// TestStatsPPL checks the estimate and its error on hand-computed values.
func TestStatsPPL(t *testing.T) {
	var s Stats
	for _, v := range []float64{1, 2, 3} {
		s.add(v)
	}
	ppl, e := s.PPL()
	// mean 2, population variance 2/3, stderr sqrt((2/3)/2)
	if math.Abs(ppl-math.Exp(2)) > 1e-12 || math.Abs(e-math.Sqrt(1.0/3)*math.Exp(2)) > 1e-12 {
		t.Fatalf("PPL %v ± %v", ppl, e)
	}
}

// TestEncodeRowDecodes: a row's quantized log-probs decode to the true
// log-softmax within half a quantization step, and clamp 16 below the max.
func TestEncodeRowDecodes(t *testing.T) {
	logits := []float32{3, 1.5, -2, 0, 2.999, -40, 7}
	row := make([]byte, 2*rowUint16s(len(logits)))
	encodeRow(row, logits)
	m, _, lse := logSumExp(logits)
	scale := math.Float32frombits(le32(row[0:]))
	minLP := math.Float32frombits(le32(row[4:]))
	for i, l := range logits {
		q := uint16(row[8+2*i]) | uint16(row[9+2*i])<<8
		got := float64(scale)*float64(q) + float64(minLP)
		want := math.Max(float64(l-m)-lse, float64(minLP))
		if math.Abs(got-want) > float64(scale)*0.51+1e-5 {
			t.Fatalf("logit %d: decoded %v, want %v (scale %v)", i, got, want, scale)
		}
	}
	if q := uint16(row[8+2*5]) | uint16(row[9+2*5])<<8; q != 0 {
		t.Fatalf("a logit 47 below the max quantized to %d, want the clamp 0", q)
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// TestBaseRoundTrip: a base run written with an f32 cache and read back by
// the same model and cache gives KLD ~0, the same top token everywhere and
// the same PPL; an f16 cache differs measurably but slightly.
func TestBaseRoundTrip(t *testing.T) {
	const nCtx = 128
	l, toks := storyTokens(t)
	o := Options{NCtx: nCtx, NBatch: 64, AddBOS: l.Tokenizer.AddBOS(), BOS: l.Tokenizer.BOS()}
	path := filepath.Join(t.TempDir(), "base.kld")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw, err := NewBaseWriter(f, nCtx, l.Model.Info().NVocab, ChunkCount(len(toks), o), toks)
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(newSession(t, l, nCtx, 64, kvcache.F32), toks, o, bw, nil); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	basePPL, _ := bw.Stats.PPL()
	// The base file stores log-probs in steps of at most 16/65535, so even
	// the same run reads back with |KLD| of order 1e-6 per position.
	for _, c := range []struct {
		typ           kvcache.Type
		maxMean, max  float64
		wantAllTopped bool
	}{{kvcache.F32, 2e-6, 2e-4, true}, {kvcache.F16, 1e-3, 1e-2, false}} {
		b, err := OpenBase(path)
		if err != nil {
			t.Fatal(err)
		}
		if b.NCtx != nCtx || b.NVocab != l.Model.Info().NVocab || len(b.Tokens) != b.NChunk*nCtx {
			t.Fatalf("header: %+v", b)
		}
		k := NewKLD(b)
		if err := Run(newSession(t, l, nCtx, 64, c.typ), b.Tokens, Options{NCtx: nCtx, NBatch: 64, AddBOS: o.AddBOS, BOS: o.BOS}, k, nil); err != nil {
			t.Fatal(err)
		}
		b.Close()
		mean, _, _, _, mx := k.Summary()
		qPPL, _ := k.Q.PPL()
		bPPL, _ := k.BaseNLL.PPL()
		t.Logf("%v cache: mean KLD %.3g, max %.3g, same top %d/%d, PPL %.5f vs base %.5f (written %.5f)", c.typ, mean, mx, k.SameTop, k.Q.Count, qPPL, bPPL, basePPL)
		if math.Abs(mean) > c.maxMean || mx > c.max {
			t.Fatalf("%v cache: mean KLD %g (bound %g), max %g (bound %g)", c.typ, mean, c.maxMean, mx, c.max)
		}
		if c.wantAllTopped && k.SameTop != k.Q.Count {
			t.Fatalf("%v cache: same top token at %d of %d positions", c.typ, k.SameTop, k.Q.Count)
		}
		if math.Abs(bPPL-basePPL) > 1e-3*basePPL {
			t.Fatalf("PPL from the base file %.6f, written run %.6f", bPPL, basePPL)
		}
	}
}

// TestOpenBaseRefusesBadFiles: wrong magic, a truncated file, an extra
// byte, an implausible header and an out-of-vocabulary token are refused
// with an error, never a panic or a huge allocation.
func TestOpenBaseRefusesBadFiles(t *testing.T) {
	var good bytes.Buffer
	toks := make([]int32, 2*8)
	bw, err := NewBaseWriter(&good, 8, 5, 2, toks)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 * scoredPerChunk(8) {
		if err := bw.Score(0, 0, []float32{1, 2, 3, 4, 5}, 2); err != nil {
			t.Fatal(err)
		}
	}
	bw.Flush()
	g := good.Bytes()
	huge := append([]byte(nil), g...)
	huge[16], huge[17], huge[18], huge[19] = 0xff, 0xff, 0xff, 0x7f
	badTok := append([]byte(nil), g...)
	badTok[20] = 9
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"good":      g,
		"magic":     append([]byte("_logitz_"), g[8:]...),
		"truncated": g[:len(g)-1],
		"extra":     append(append([]byte(nil), g...), 0),
		"huge":      huge,
		"token":     badTok,
		"empty":     nil,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := OpenBase(p)
		if name == "good" {
			if err != nil {
				t.Fatalf("good file refused: %v", err)
			}
			b.Close()
			continue
		}
		if err == nil {
			b.Close()
			t.Fatalf("%s: accepted", name)
		}
		t.Logf("%s: %v", name, err)
	}
}
