package dream

import (
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
)

// diffusionFixtures are the models of ../shared/models/diffusion with
// goldens in goldens-diffusion.
var diffusionFixtures = []string{"synth-dream-spm-f32", "synth-llada-spm-f32"}

func loadFixture(t testing.TB, stem string) (*engine.Loaded, *golden.DiffusionFile) {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, filepath.Join("diffusion", stem+".gguf")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	g, err := golden.LoadDiffusion(testenv.Model(t, filepath.Join("goldens-diffusion", stem+".json")))
	if err != nil {
		t.Fatal(err)
	}
	return l, g
}

func newDenoiser(t testing.TB, m engine.Model, o engine.DenoiserOptions) *denoiser {
	t.Helper()
	dm, ok := m.(engine.DiffusionModel)
	if !ok {
		t.Fatalf("%T is not a DiffusionModel", m)
	}
	d, err := dm.NewDenoiser(o)
	if err != nil {
		t.Fatal(err)
	}
	return d.(*denoiser)
}

// rawLogits runs one full forward of the case's input and returns the
// logits of every position (unshifted, as the goldens store them).
func rawLogits(t testing.TB, d *denoiser, c *golden.DiffusionCase) [][]float32 {
	t.Helper()
	if err := d.SetPrefix(0, c.InputIDs[:c.NPrompt]); err != nil {
		t.Fatal(err)
	}
	if err := d.plan([]engine.Canvas{{Seq: 0, Tokens: c.InputIDs[c.NPrompt:]}}); err != nil {
		t.Fatal(err)
	}
	d.forward()
	hp := &d.m.hp
	out := make([][]float32, len(c.InputIDs))
	xn := make([]float32, hp.nEmbd)
	for i := range out {
		kernels.RMSNorm(xn, row(d.x, i, hp.nEmbd), hp.eps)
		kernels.Mul(xn, xn, d.m.outputNorm)
		out[i] = make([]float32, hp.nVocab)
		d.m.output.MulVec(out[i], xn, d.act)
	}
	return out
}

// TestParityLogits compares the non-causal logits of every position of
// every goldens-diffusion case with llama.cpp's within 1e-4 (top-20, max
// and log-sum-exp), and the argmax wherever llama.cpp's margin is clear.
func TestParityLogits(t *testing.T) {
	for _, stem := range diffusionFixtures {
		t.Run(stem, func(t *testing.T) {
			l, g := loadFixture(t, stem)
			d := newDenoiser(t, l.Model, engine.DenoiserOptions{NCtx: 128, Threads: 2})
			for _, c := range g.Cases {
				rows := rawLogits(t, d, &c)
				checkRows(t, c.Name, rows, c.Positions, 1e-4)
			}
		})
	}
}

func checkRows(t *testing.T, name string, rows [][]float32, pos []golden.Position, tol float64) {
	t.Helper()
	if len(pos) != len(rows) {
		t.Fatalf("%s: %d golden positions for %d rows", name, len(pos), len(rows))
	}
	worst := 0.0
	for _, p := range pos {
		diff := golden.ComparePosition(rows[p.I], &p, tol)
		worst = max(worst, diff.MaxAbs)
		if diff.MaxAbs > tol {
			t.Errorf("%s: position %d: |Δ| %.3g > %g (token %d)", name, p.I, diff.MaxAbs, tol, diff.WorstID)
		}
		if diff.Clear && !diff.Top1OK {
			t.Errorf("%s: position %d: argmax differs from llama.cpp's", name, p.I)
		}
	}
	t.Logf("%s: %d positions, max |Δ| %.3g", name, len(pos), worst)
}

// TestDenoiseVisitsPredictionRows checks the public path: Denoise hands
// canvas position i the row llama-diffusion-cli reads for it (row p-1 of
// absolute position p with shifted logits, row p otherwise), every wanted
// position once, in ascending order, skipping the unwanted ones.
func TestDenoiseVisitsPredictionRows(t *testing.T) {
	for _, stem := range diffusionFixtures {
		t.Run(stem, func(t *testing.T) {
			l, g := loadFixture(t, stem)
			c := &g.Cases[1]
			d := newDenoiser(t, l.Model, engine.DenoiserOptions{NCtx: 128, Threads: 2})
			canvas := c.InputIDs[c.NPrompt:]
			need := make([]bool, len(canvas))
			for i := range need {
				need[i] = i%3 != 1
			}
			shift := 0
			if g.ShiftLogits {
				shift = 1
			}
			if d.m.diff.ShiftLogits != g.ShiftLogits {
				t.Fatalf("ShiftLogits %v, golden %v", d.m.diff.ShiftLogits, g.ShiftLogits)
			}
			if err := d.SetPrefix(0, c.InputIDs[:c.NPrompt]); err != nil {
				t.Fatal(err)
			}
			next := 0
			err := d.Denoise([]engine.Canvas{{Seq: 0, Tokens: canvas, Need: need}}, func(k, i int, logits []float32) {
				for next < len(need) && !need[next] {
					next++
				}
				if k != 0 || i != next {
					t.Fatalf("visited (%d, %d), want (0, %d)", k, i, next)
				}
				next++
				p := &c.Positions[c.NPrompt+i-shift]
				if diff := golden.ComparePosition(logits, p, 1e-4); diff.MaxAbs > 1e-4 {
					t.Errorf("canvas %d (row %d): |Δ| %.3g", i, p.I, diff.MaxAbs)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for next < len(need) && !need[next] {
				next++
			}
			if next != len(need) {
				t.Fatalf("stopped at canvas position %d of %d", next, len(need))
			}
		})
	}
}
