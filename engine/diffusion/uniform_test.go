package diffusion

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// gemmaTrace is goldens-diffusion-gemma/trace.json: DiffusionGemma's
// entropy-bound sampler step by step, recorded from the llama.cpp fork.
type gemmaTrace struct {
	Runs map[string]struct {
		Seed        uint32  `json:"seed"`
		Bound       float32 `json:"entropy_bound"`
		Stability   int     `json:"stability_threshold"`
		StopEntropy float32 `json:"confidence_threshold"`
		Trace       struct {
			Initial []int32 `json:"initial_canvas"`
			Final   []int32 `json:"final_argmax_canvas"`
			NSteps  int     `json:"n_steps_run"`
			Steps   []struct {
				T        float32   `json:"t"`
				TempInv  float32   `json:"temp_inv"`
				SCUse    int       `json:"sc_use"`
				SCInv    float32   `json:"sc_temp_inv"`
				CanvasIn []int32   `json:"canvas_in"`
				U        []float32 `json:"u"`
				Renoise  []int32   `json:"renoise"`
				Argmax   []int32   `json:"argmax"`
				Sampled  []int32   `json:"sampled"`
				Entropy  []float32 `json:"entropy"`
				Accepted []int32   `json:"accepted_pos"`
				AccTok   []int32   `json:"accepted_tok"`
				Held     int       `json:"held"`
				Finished bool      `json:"finished"`
			} `json:"steps"`
		} `json:"trace"`
	} `json:"runs"`
}

// TestUniformNoiseTrace replays the fork's entropy-bound runs through a
// Run of a uniform-noise model (no DiffusionGemma backbone is needed: the
// network's outputs are taken from the trace). It checks everything the
// decoder itself decides: the initial canvas and the per-step uniforms and
// renoise tokens drawn from mt19937(seed), the temperature schedule and
// the self-conditioning temperature passed to the model, the acceptance
// by the entropy bound, the next canvas (accepted samples, renoised
// rest), the stable-and-confident stop, and the committed argmax canvas.
func TestUniformNoiseTrace(t *testing.T) {
	path := testenv.Model(t, filepath.Join("goldens-diffusion-gemma", "trace.json"))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g gemmaTrace
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Runs) != 4 {
		t.Fatalf("%d runs in trace.json, want 4", len(g.Runs))
	}
	info := &engine.DiffusionInfo{MaskToken: 512, UniformNoise: true, CanvasLength: 16}
	for name, run := range g.Runs {
		t.Run(name, func(t *testing.T) {
			cfg := Defaults(info)
			cfg.Steps, cfg.Seed, cfg.Bound = 16, run.Seed, run.Bound
			cfg.Stability, cfg.StopEntropy = run.Stability, run.StopEntropy
			r, err := NewRun(info, 517, cfg, []int32{1, 2, 3}, Options{Canvas: 16})
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for r.Prepare() {
				if steps >= len(run.Trace.Steps) {
					t.Fatalf("step %d: the fork stopped after %d", steps, run.Trace.NSteps)
				}
				want := &run.Trace.Steps[steps]
				c := r.Canvas(0)
				if !slices.Equal(c.Tokens, want.CanvasIn) {
					t.Fatalf("step %d: canvas %v, fork %v", steps, c.Tokens, want.CanvasIn)
				}
				if steps == 0 && !slices.Equal(c.Tokens, run.Trace.Initial) {
					t.Fatalf("initial canvas %v, fork %v", c.Tokens, run.Trace.Initial)
				}
				if r.st.invT != want.TempInv || (want.SCUse == 1) != (c.SelfCondInvTemp != 0) ||
					(want.SCUse == 1 && c.SelfCondInvTemp != want.SCInv) {
					t.Fatalf("step %d: 1/T %v, self-conditioning %v; fork %v, %v (use %d)", steps, r.st.invT, c.SelfCondInvTemp, want.TempInv, want.SCInv, want.SCUse)
				}
				if !slices.Equal(r.st.u[:16], want.U) || !slices.Equal(r.st.renoise[:16], want.Renoise) {
					t.Fatalf("step %d: draws differ from the fork's", steps)
				}
				for p := range 16 { // the network's outputs, as the fork computed them
					r.argmax[p], r.st.chosen[p] = want.Argmax[p], want.Sampled[p]
					r.st.score[p] = float64(want.Entropy[p])
				}
				r.Finish()
				var pos, tok []int32
				for _, w := range r.Record().Wrote {
					pos, tok = append(pos, w[0]-3), append(tok, w[1])
				}
				if !slices.Equal(pos, want.Accepted) || !slices.Equal(tok, want.AccTok) {
					t.Fatalf("step %d: accepted %v %v, fork %v %v", steps, pos, tok, want.Accepted, want.AccTok)
				}
				if r.st.held != want.Held || r.settled != want.Finished {
					t.Fatalf("step %d: held %d settled %v, fork %d %v", steps, r.st.held, r.settled, want.Held, want.Finished)
				}
				steps++
			}
			if steps != run.Trace.NSteps {
				t.Fatalf("ran %d steps, the fork %d", steps, run.Trace.NSteps)
			}
			if !slices.Equal(r.Committed(), run.Trace.Final) {
				t.Fatalf("committed %v, fork %v", r.Committed(), run.Trace.Final)
			}
		})
	}
}

// TestStats checks the streaming row statistics against a direct
// computation over the normalised probabilities.
func TestStats(t *testing.T) {
	logits := []float32{0.5, 3, -1, 3, 2.25, -7, 1}
	for _, invT := range []float64{1, 1.25, 0.5} {
		st := stats(logits, invT, -1)
		p := make([]float64, len(logits))
		var s float64
		for i, l := range logits {
			p[i] = math.Exp(float64(l) * invT)
			s += p[i]
		}
		h := 0.0
		for i := range p {
			p[i] /= s
			h -= p[i] * math.Log(p[i])
		}
		if st.argmax != 1 || st.max != 3 || st.second != 3 {
			t.Errorf("invT %v: argmax %d max %v second %v, want 1 3 3", invT, st.argmax, st.max, st.second)
		}
		if math.Abs(st.entropy-h) > 1e-12 || math.Abs(st.pMax(invT)-p[1]) > 1e-12 || math.Abs(st.margin(invT)) > 1e-12 {
			t.Errorf("invT %v: entropy %v pmax %v margin %v, want %v %v 0", invT, st.entropy, st.pMax(invT), st.margin(invT), h, p[1])
		}
		sk := stats(logits, invT, 1) // the mask token (1) is no candidate
		if sk.argmax != 3 || sk.entropy != st.entropy || math.Abs(sk.pMax(invT)-p[3]) > 1e-12 || math.Abs(sk.margin(invT)-(p[3]-p[4])) > 1e-12 {
			t.Errorf("invT %v, skipping 1: argmax %d pmax %v margin %v, want 3 %v %v", invT, sk.argmax, sk.pMax(invT), sk.margin(invT), p[3], p[3]-p[4])
		}
		for _, u := range []float64{0, 0.3, 0.999999} {
			cum, want := 0.0, int32(len(p)-1)
			for i := range p {
				if cum += p[i]; cum > u {
					want = int32(i)
					break
				}
			}
			if got := sampleInverse(logits, &st, invT, u); got != want {
				t.Errorf("invT %v u %v: sample %d, want %d", invT, u, got, want)
			}
		}
	}
}
