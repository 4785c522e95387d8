//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	vk "github.com/waggle-llm/waggle/kernels/vulkan"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestMain runs every test under the Khronos validation layer unless the
// environment turns it off (WAGGLE_VK_VALIDATE=0).
func TestMain(m *testing.M) {
	if os.Getenv(vk.ValidationEnv) == "" {
		os.Setenv(vk.ValidationEnv, "1")
	}
	os.Exit(m.Run())
}

var deviceOnce sync.Once

// bigVocabOutputs is how many final positions of a case TestOffloadParity
// compares for a large vocabulary.
const bigVocabOutputs = 8

// requireDevice makes sure a Vulkan device opens (a CPU one such as
// lavapipe when no GPU is present and WAGGLE_VK_DEVICE says nothing: the
// whole-model tests are about correctness) and fails the test on any
// validation message it causes. No Vulkan is a missing fixture.
func requireDevice(t *testing.T) {
	t.Helper()
	deviceOnce.Do(func() {
		if os.Getenv(vk.DeviceEnv) == "" {
			if _, err := vk.Open(""); err != nil {
				if devs, err := vk.Devices(); err == nil && len(devs) > 0 {
					os.Setenv(vk.DeviceEnv, "0")
				}
			}
		}
	})
	if _, err := openDevice(""); err != nil {
		testenv.Missing(t, "no Vulkan device: %v", err)
	}
	vk.ValidationMessages()
	t.Cleanup(func() {
		if msgs := vk.ValidationMessages(); len(msgs) > 0 {
			t.Errorf("%d validation messages:\n%s", len(msgs), strings.Join(msgs, "\n"))
		}
	})
}

// offloadModels are the llama-family models with logits goldens: every
// weight type, GQA, tied heads, qwen2 biases and qwen3 q/k norms.
func offloadModels(t *testing.T) []string {
	matches, err := filepath.Glob(filepath.Join(testenv.ModelsDir(t), "goldens", "*.json"))
	if err != nil || len(matches) == 0 {
		testenv.Missing(t, "no goldens under %s", testenv.ModelsDir(t))
	}
	var names []string
	for _, m := range matches {
		if stem := strings.TrimSuffix(filepath.Base(m), ".json"); !strings.Contains(stem, "qwen35") {
			names = append(names, stem)
		}
	}
	if len(names) < 19 {
		t.Fatalf("expected at least 19 llama/qwen2/qwen3 goldens, found %d", len(names))
	}
	return names
}

func loadModel(t *testing.T, stem string) (*engine.Loaded, *golden.File) {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, stem+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	g, err := golden.Load(filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return l, g
}

// session makes a session with ngl GPU layers (0: the CPU path) that is
// closed when the test ends.
func session(t *testing.T, l *engine.Loaded, typ kvcache.Type, ngl, nSeq int) engine.Session {
	t.Helper()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: 512, NBatch: 512, NSeq: nSeq, TypeK: typ, TypeV: typ, GPULayers: ngl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.CloseSession(s) })
	if want := map[bool]string{true: "Vulkan", false: "CPU"}[ngl > 0]; engine.Backend(s) != want {
		t.Fatalf("backend %q, want %q", engine.Backend(s), want)
	}
	return s
}

// decodeAll decodes tokens as one batch of sequence seq from position pos,
// every token an output, and returns a copy of the logits.
func decodeAll(t *testing.T, s engine.Session, tokens []int32, seq, pos int) [][]float32 {
	t.Helper()
	return decodeLast(t, s, tokens, seq, pos, len(tokens))
}

// decodeLast is decodeAll with only the last k tokens as outputs; the
// others' rows are nil.
func decodeLast(t *testing.T, s engine.Session, tokens []int32, seq, pos, k int) [][]float32 {
	t.Helper()
	var b engine.Batch
	first := len(tokens) - k
	for i, tok := range tokens {
		b.Add(tok, int32(pos+i), int32(seq), i >= first)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(tokens))
	for i := first; i < len(tokens); i++ {
		out[i] = slices.Clone(s.Logits(i - first))
	}
	return out
}

// TestOffloadParity runs every golden with all layers and the head on the
// device (F32 cache, as the goldens were made) and compares each
// position's logits with llama.cpp's within the tolerance the CPU parity
// test uses, and the top-1 token where llama.cpp's margin is clear. For
// vocabularies over 32000 tokens only the last bigVocabOutputs positions
// are outputs: the head is most of the work there, and lavapipe is slow.
func TestOffloadParity(t *testing.T) {
	requireDevice(t)
	for _, stem := range offloadModels(t) {
		t.Run(stem, func(t *testing.T) {
			l, g := loadModel(t, stem)
			tol := golden.Tolerance(l.File)
			s := session(t, l, kvcache.F32, l.Model.Info().NLayer+1, 1)
			for _, c := range g.Cases {
				if err := s.Truncate(0, 0); err != nil {
					t.Fatal(err)
				}
				k := len(c.Tokens)
				if l.Model.Info().NVocab > 32000 {
					k = min(k, bigVocabOutputs)
				}
				logits := decodeLast(t, s, c.Tokens, 0, 0, k)
				var worst float64
				for i := len(c.Tokens) - k; i < len(c.Positions); i++ {
					d := golden.ComparePosition(logits[i], &c.Positions[i], tol)
					worst = max(worst, d.MaxAbs)
					if d.MaxAbs > tol {
						t.Errorf("%q position %d: |Δlogit| %.3g > %.3g", c.Prompt, i, d.MaxAbs, tol)
					}
					if d.Clear && !d.Top1OK {
						t.Errorf("%q position %d: argmax differs from llama.cpp's", c.Prompt, i)
					}
				}
				t.Logf("%q: %d positions, max |Δ| vs llama.cpp %.3g (tolerance %.3g)", c.Prompt, k, worst, tol)
			}
		})
	}
}

// greedyModels cover every architecture variant, head size and weight-type
// family for the token-by-token test (TestOffloadParity covers every
// golden's logits).
var greedyModels = []string{"stories260K-f16", "llama-2-tiny-random", "synth-llama-tiny-bf16", "synth-llama-tiny-q2_k",
	"synth-llama-tiny-q5_1", "synth-llama3-tiny-q4_k_m", "synth-qwen2-tiny-q8_0", "synth-qwen3-spm-q4_k_m"}

// TestOffloadGreedy decodes each golden prompt token by token, greedily,
// with every layer on the device and the head on the CPU (-ngl = layers),
// on an f16 cache, and with the CPU path: the tokens must be equal up to
// the first step whose llama.cpp margin is unclear.
func TestOffloadGreedy(t *testing.T) {
	requireDevice(t)
	for _, stem := range greedyModels {
		t.Run(stem, func(t *testing.T) {
			l, g := loadModel(t, stem)
			tol := golden.Tolerance(l.File) + golden.F16CacheExtra
			gpu := session(t, l, kvcache.F16, l.Model.Info().NLayer, 1)
			cpu := session(t, l, kvcache.F16, 0, 1)
			for _, c := range g.Cases {
				want := c.Tokens[c.NPrompt:]
				clear := 0
				for clear < len(want) && c.Positions[c.NPrompt-1+clear].Margin() > 2*tol {
					clear++
				}
				got, ref := greedy(t, l, gpu, c.Tokens[:c.NPrompt], len(want)), greedy(t, l, cpu, c.Tokens[:c.NPrompt], len(want))
				if !slices.Equal(got[:min(clear, len(got), len(ref))], ref[:min(clear, len(got), len(ref))]) {
					t.Errorf("%q: GPU greedy ids %v, CPU %v (compared up to step %d)", c.Prompt, got, ref, clear)
				}
			}
		})
	}
}

// greedy generates n tokens at temperature 0 on s from an empty sequence 0.
func greedy(t *testing.T, l *engine.Loaded, s engine.Session, prompt []int32, n int) []int32 {
	t.Helper()
	if err := s.Truncate(0, 0); err != nil {
		t.Fatal(err)
	}
	p := sample.DefaultParams()
	p.Temp = 0
	smp, err := sample.New(p, l.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	g := &engine.Generator{Sess: s, Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
	var out []int32
	if _, err := g.Generate(prompt, n, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}
