package llama_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestTapsMatchBeeLlama decodes the prompts of goldens-dflash on the
// synthetic qwen3 target with the drafter's taps (outputs of layers 0 and
// 2) and compares every token's captured row with the rows BeeLlama's
// capture callback recorded, then does the same for each step's anchor
// (the first appended row of the step, decoded after the prompt).
func TestTapsMatchBeeLlama(t *testing.T) {
	for _, p := range []string{"p1", "p2", "p3"} {
		t.Run(p, func(t *testing.T) {
			g, err := golden.LoadDFlash(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens-dflash", p+".json")))
			if err != nil {
				t.Fatal(err)
			}
			l := loadModel(t, g.Config.Target)
			var taps []engine.Tap
			for _, id := range g.Config.Taps {
				taps = append(taps, engine.LayerOutput(id))
			}
			s, err := l.Model.NewSession(engine.SessionOptions{NCtx: 256, TypeK: kvcache.F32, TypeV: kvcache.F32, Taps: taps})
			if err != nil {
				t.Fatal(err)
			}
			var b engine.Batch
			for i, tok := range g.Prompt {
				b.Add(tok, int32(i), 0, i == len(g.Prompt)-1)
			}
			if err := s.Decode(&b); err != nil {
				t.Fatal(err)
			}
			tp := s.(engine.Tapper)
			worst := 0.0
			for i, want := range g.PromptRows {
				worst = max(worst, checkRow(t, fmt.Sprintf("prompt token %d", i), tp.Tapped(i), want))
			}
			st := g.Steps[0]
			b.Reset()
			b.Add(st.Anchor, int32(st.NPast), 0, true)
			if err := s.Decode(&b); err != nil {
				t.Fatal(err)
			}
			worst = max(worst, checkRow(t, "step 0 anchor", tp.Tapped(0), st.AppendedRows[0]))
			if tp.Tapped(1) != nil {
				t.Error("a row past the batch is captured")
			}
			t.Logf("max |Δ| %.3g over %d rows", worst, len(g.PromptRows)+1)
		})
	}
}

// checkRow compares a captured row with BeeLlama's (f32 arithmetic in a
// different order: 1e-4 absolute on values of order 1-10).
func checkRow(t *testing.T, what string, got, want []float32) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values captured, want %d", what, len(got), len(want))
	}
	worst := 0.0
	for j := range got {
		worst = max(worst, math.Abs(float64(got[j]-want[j])))
	}
	if worst > 1e-4 {
		t.Errorf("%s: captured row differs from BeeLlama's by %.3g", what, worst)
	}
	return worst
}

// TestTapsEveryToken: taps cover every token of a batch, not only the
// outputs; a prompt decoded as one batch captures the same rows as token by
// token; the embeddings tap depends on the token only; a layer-output tap
// equals CaptureLayers' hidden state of the same layer; capturing does not
// change the logits.
func TestTapsEveryToken(t *testing.T) {
	l := demo(t)
	nl := l.Model.Info().NLayer
	taps := []engine.Tap{engine.LayerInput(0), engine.LayerOutput(0), engine.LayerOutput(nl - 1)}
	batch := demoSession(t, l, engine.SessionOptions{Taps: taps, CaptureLayers: []int{nl - 1}})
	var b engine.Batch
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, i == len(prompt)-1)
	}
	if err := batch.Decode(&b); err != nil {
		t.Fatal(err)
	}
	tb := batch.(engine.Tapper)
	rows := make([][]float32, len(prompt))
	for i := range prompt {
		if rows[i] = copyRow(tb.Tapped(i)); len(rows[i]) != len(taps)*l.Model.Info().NEmbd {
			t.Fatalf("token %d: %d values captured", i, len(rows[i]))
		}
	}
	e := l.Model.Info().NEmbd
	if d := maxDiff(rows[len(prompt)-1][2*e:], batch.Hidden(nl-1, 0)); d != 0 {
		t.Fatalf("LayerOutput(%d) differs from Hidden(%d) by %g", nl-1, nl-1, d)
	}
	plain := demoSession(t, l, engine.SessionOptions{})
	one := demoSession(t, l, engine.SessionOptions{Taps: taps})
	for i, tok := range prompt {
		decodeAll(t, one, 0, []int32{tok}, i)
		decodeAll(t, plain, 0, []int32{tok}, i)
		if d := maxDiff(one.(engine.Tapper).Tapped(0), rows[i]); d != 0 {
			t.Fatalf("token %d: one-token capture differs from the batch's by %g", i, d)
		}
		if d := maxDiff(one.Logits(0), plain.Logits(0)); d != 0 {
			t.Fatalf("token %d: taps changed the logits by %g", i, d)
		}
	}
	decodeAll(t, one, 0, []int32{prompt[1]}, len(prompt))
	if d := maxDiff(one.(engine.Tapper).Tapped(0)[:e], rows[1][:e]); d != 0 {
		t.Fatalf("the embeddings tap depends on the position (%g)", d)
	}
	if maxDiff(rows[1][:e], rows[1][e:2*e]) == 0 {
		t.Fatal("layer 0's output equals its input")
	}
	if _, err := l.Model.NewSession(engine.SessionOptions{Taps: []engine.Tap{engine.LayerOutput(nl)}}); err == nil {
		t.Fatal("a tap past the last layer was accepted")
	}
}
