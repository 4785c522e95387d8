package eagle3_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// cycle is one draft/verify cycle of a run.
type cycle struct {
	nPast     int
	idLast    int32
	draft     []int32
	targetIDs []int32
}

// run is what mainlineLoop returns.
type run struct {
	cycles             []cycle
	generated          []int32
	drafted, accepted  int
	stepLogits, states [][][]float32 // per cycle, per draft decode
}

// mainlineLoop replays llama-speculative-simple's loop, with which the
// goldens were recorded, on one sequence with greedy verification: the
// prompt but its last token is decoded and committed, the last prompt
// token is the first id_last; each cycle drafts (cut to the remaining
// budget n_predict - n_generated - 1 when that is positive; mainline
// leaves a draft whole when it is 0), verifies [id_last, draft…] on the
// target, commits id_last and the accepted drafts and drops the rest; the
// run ends at an end-of-generation token or once more than n_predict
// tokens were generated (llama-speculative-simple; the goldens-eagle3
// producer stops at n_predict: stopAt).
func mainlineLoop(t *testing.T, target *engine.Loaded, s *eagle3.Strategy, prompt []int32, nPredict, nMax, nCtx int, stopAt bool) *run {
	t.Helper()
	sess := newTapped(t, target.Model, s.Layers(), engine.SessionOptions{NCtx: nCtx, NBatch: 64, Threads: 1})
	out := &run{}
	eagle3.Observe(s, func(_, step int, logits, next []float32) {
		c := len(out.cycles)
		for len(out.stepLogits) <= c {
			out.stepLogits, out.states = append(out.stepLogits, nil), append(out.states, nil)
		}
		if step != len(out.stepLogits[c]) {
			t.Fatalf("cycle %d: step %d observed after %d", c, step, len(out.stepLogits[c]))
		}
		out.stepLogits[c] = append(out.stepLogits[c], append([]float32(nil), logits...))
		out.states[c] = append(out.states[c], append([]float32(nil), next...))
	})
	var b engine.Batch
	n := len(prompt)
	for i, tok := range prompt[:n-1] {
		b.Add(tok, int32(i), 0, true)
	}
	if err := sess.Decode(&b); err != nil {
		t.Fatal(err)
	}
	history := append([]int32(nil), prompt[:n-1]...)
	s.Committed(0, 0, history, sess.Row)
	s.Begin(0, history)
	idLast, nPast, nPred := prompt[n-1], n-1, 0
	eos := target.Tokenizer.EOS()
	for {
		budget := max(min(nCtx-nPast-2, nPredict-nPred-1), 0)
		req := &spec.Request{Seq: 0, NMax: nMax, NPast: nPast, Last: idLast, History: history, Draft: make([]int32, 0, nMax), PMin: -1}
		s.Draft([]*spec.Request{req})
		draft := req.Draft
		if budget > 0 && len(draft) > budget {
			draft = draft[:budget]
		}
		b.Reset()
		b.Add(idLast, int32(nPast), 0, true)
		for i, d := range draft {
			b.Add(d, int32(nPast+1+i), 0, true)
		}
		if err := sess.Decode(&b); err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for i := 0; i <= len(draft); i++ {
			tok := argmax(sess.Logits(i))
			ids = append(ids, tok)
			if i == len(draft) || tok != draft[i] {
				break
			}
		}
		committed := append([]int32{idLast}, ids[:len(ids)-1]...)
		s.Committed(0, nPast, committed, sess.Row)
		s.Accept(0, len(ids)-1)
		out.cycles = append(out.cycles, cycle{nPast: nPast, idLast: idLast, draft: append([]int32(nil), draft...), targetIDs: ids})
		out.drafted += len(draft)
		out.accepted += len(ids) - 1
		nPred += len(ids)
		history = append(history, committed...)
		nPast += len(ids)
		if err := sess.Truncate(0, nPast); err != nil {
			t.Fatal(err)
		}
		stop := false
		for _, id := range ids {
			out.generated = append(out.generated, id)
			if id == eos {
				stop = true
				break
			}
		}
		idLast = ids[len(ids)-1]
		if nPred > nPredict || (stopAt && nPred == nPredict) || stop {
			return out
		}
	}
}

var exactGoldens = []struct{ file, drafter string }{
	{"eagle3-llama-tiny-n1.json", "synth-eagle3-llama-tiny-f32.gguf"},
	{"eagle3-llama-tiny-n3.json", "synth-eagle3-llama-tiny-f32.gguf"},
	{"eagle3-llama-tiny-accept-n1.json", "synth-eagle3-llama-tiny-accept-f32.gguf"},
	{"eagle3-llama-tiny-accept-n3.json", "synth-eagle3-llama-tiny-accept-f32.gguf"},
}

// TestGoldenRuns runs the strategy through mainline's loop on every exact
// goldens-eagle3 file: every cycle's position, id_last, draft and
// verification result, the generated text, and every draft decode's
// top-20 logits and pre-norm state (within 1e-4) must be mainline's;
// that is the incremental bookkeeping (pairs written from committed
// rows, the pending feature, the seed kept across an accepted cycle).
func TestGoldenRuns(t *testing.T) {
	target := model(t, "synth-llama-tiny-f32.gguf")
	for _, gc := range exactGoldens {
		t.Run(gc.file, func(t *testing.T) {
			g, err := golden.LoadEagle3(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens-eagle3", gc.file)))
			if err != nil {
				t.Fatal(err)
			}
			s := newStrategy(t, target, drafter(t, gc.drafter), g.NDraftMax, 1, 256)
			r := mainlineLoop(t, target, s, g.PromptTokens, g.NPredict, g.NDraftMax, 256, true)
			if len(r.cycles) != len(g.Cycles) {
				t.Fatalf("%d cycles, mainline %d", len(r.cycles), len(g.Cycles))
			}
			for i, c := range g.Cycles {
				got := r.cycles[i]
				if got.nPast != c.NPast || got.idLast != c.IDLast || fmt.Sprint(got.draft) != fmt.Sprint(c.Draft) || fmt.Sprint(got.targetIDs) != fmt.Sprint(c.TargetIDs) {
					t.Fatalf("cycle %d: n_past %d id_last %d draft %v target %v; mainline %d %d %v %v",
						i, got.nPast, got.idLast, got.draft, got.targetIDs, c.NPast, c.IDLast, c.Draft, c.TargetIDs)
				}
				checkSteps(t, i, r.stepLogits[i], r.states[i], c.Steps, eagle3.DraftVocab(s), target.Model.Info().NVocab)
			}
			if fmt.Sprint(r.generated) != fmt.Sprint(g.Generated) {
				t.Fatalf("generated %v, mainline %v", r.generated, g.Generated)
			}
			t.Logf("%d cycles, drafted %d, accepted %d", len(r.cycles), r.drafted, r.accepted)
		})
	}
}

func checkSteps(t *testing.T, c int, logits, states [][]float32, want []golden.Eagle3Step, d2t []int32, nVocab int) {
	t.Helper()
	if len(logits) != len(want) {
		t.Fatalf("cycle %d: %d draft decodes, mainline %d", c, len(logits), len(want))
	}
	for s, w := range want {
		full := make([]float32, nVocab)
		for i := range full {
			full[i] = float32(negInf)
		}
		for i, v := range logits[s] {
			full[d2t[i]] = v
		}
		if _, msg := golden.CompareTop20(golden.Top20(full), w.Top20, 1e-4); msg != "" {
			t.Fatalf("cycle %d step %d: top-20 %s", c, s, msg)
		}
		for i, v := range w.Prenorm {
			if d := float64(states[s][i] - v); d > 1e-4 || d < -1e-4 {
				t.Fatalf("cycle %d step %d: pre-norm value %d is %v, mainline %v", c, s, i, states[s][i], v)
			}
		}
	}
}

var negInf = math.Inf(-1)

// acceptance is goldens-trained-drafters/acceptance.json.
type acceptance struct {
	Meta struct {
		NPredict int `json:"n_predict"`
	} `json:"meta"`
	Prompts []struct {
		I      int              `json:"i"`
		IDs    []int32          `json:"ids"`
		Eagle3 map[string][]int `json:"eagle3"`
	} `json:"prompts"`
}

// TestTrainedDrafterCounts runs the trained stories260K drafter through
// mainline's loop on the ten prompts of goldens-trained-drafters at depth
// 1 and 3: the drafted and accepted counts must be mainline's on every
// prompt, and depth 3 must accept more than depth 1 (the fed-back state
// drafts well past the first token).
func TestTrainedDrafterCounts(t *testing.T) {
	g := loadAcceptance(t)
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf")
	total := map[int]int{}
	for _, depth := range []int{1, 3} {
		for _, p := range g.Prompts {
			s := newStrategy(t, target, dm, depth, 1, 512)
			r := mainlineLoop(t, target, s, p.IDs, g.Meta.NPredict, depth, 512, false)
			want := p.Eagle3[fmt.Sprint(depth)]
			if r.drafted != want[0] || r.accepted != want[1] {
				t.Errorf("depth %d prompt %d: drafted %d accepted %d, mainline %d %d", depth, p.I, r.drafted, r.accepted, want[0], want[1])
			}
			total[depth] += r.accepted
		}
	}
	if total[3] <= total[1] {
		t.Errorf("depth 3 accepted %d tokens, depth 1 %d: deeper drafts should pay", total[3], total[1])
	}
	t.Logf("accepted: depth 1 %d, depth 3 %d", total[1], total[3])
}

func loadAcceptance(t *testing.T) *acceptance {
	t.Helper()
	data, err := os.ReadFile(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens-trained-drafters", "acceptance.json")))
	if err != nil {
		t.Fatal(err)
	}
	var g acceptance
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}
