package llama_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestQwen3MoEParity checks the qwen3moe path without a qwen3moe fixture:
// it rewrites synth-qwen3-spm-f32 (which has llama.cpp goldens) into a
// qwen3moe file whose every expert is the dense FFN and whose router rows
// are random. With renormalised top-k weights the MoE then equals the dense
// FFN whatever the routing, so the logits must match the qwen3 goldens
// within the F32 tolerance: one expert used of one, and two used of four
// (which also fails if the selected weights are not renormalised to sum 1,
// as their raw softmax sum is then below 1). The routing formula itself,
// with distinct experts, is checked in package moe against a float64
// reference.
func TestQwen3MoEParity(t *testing.T) {
	const stem = "synth-qwen3-spm-f32"
	g, err := golden.Load(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json")))
	if err != nil {
		t.Fatal(err)
	}
	src, err := gguf.Open(testenv.Model(t, stem+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, c := range []struct{ experts, used int }{{1, 1}, {4, 2}} {
		t.Run(fmt.Sprintf("%d_of_%d", c.used, c.experts), func(t *testing.T) {
			l, err := engine.LoadBytes(toQwen3MoE(t, src, c.experts, c.used))
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Model.Info().Arch; got != "qwen3moe" {
				t.Fatalf("loaded as %q", got)
			}
			tol := golden.Tolerance(l.File)
			for _, gc := range g.Cases {
				checkCase(t, l, &gc, tol, &golden.Stats{})
			}
		})
	}
}

// toQwen3MoE returns src (a qwen3 F32 file) as a qwen3moe GGUF: the qwen3.*
// keys renamed, the expert keys added, and each layer's dense ffn_gate /
// ffn_up / ffn_down replaced by a random router and nExpert copies of them.
func toQwen3MoE(t *testing.T, src *gguf.File, nExpert, nUsed int) []byte {
	t.Helper()
	w := gguf.NewWriter(src.Alignment)
	for _, kv := range src.KVs {
		switch {
		case kv.Key == "general.architecture":
			w.AddKV(kv.Key, gguf.StringValue("qwen3moe"))
		case strings.HasPrefix(kv.Key, "qwen3."):
			w.AddKV("qwen3moe."+strings.TrimPrefix(kv.Key, "qwen3."), kv.Value)
		default:
			w.AddKV(kv.Key, kv.Value)
		}
	}
	nFF, _ := src.Uint("qwen3.feed_forward_length")
	w.AddKV("qwen3moe.expert_count", gguf.Uint32Value(uint32(nExpert)))
	w.AddKV("qwen3moe.expert_used_count", gguf.Uint32Value(uint32(nUsed)))
	w.AddKV("qwen3moe.expert_feed_forward_length", gguf.Uint32Value(uint32(nFF)))
	rng := rand.New(rand.NewPCG(8, uint64(nExpert)))
	add := func(name string, dims []int64, data []byte) {
		if err := w.AddTensor(name, gguf.TypeF32, dims, data); err != nil {
			t.Fatal(err)
		}
	}
	for i := range src.Tensors {
		ti := &src.Tensors[i]
		base, ok := strings.CutSuffix(ti.Name, ".weight")
		kind := base[strings.LastIndexByte(base, '.')+1:]
		if !ok || (kind != "ffn_gate" && kind != "ffn_up" && kind != "ffn_down") {
			add(ti.Name, ti.Dims, src.TensorData(ti))
			continue
		}
		if ti.Type != gguf.TypeF32 || len(ti.Dims) != 2 {
			t.Fatalf("%s: want a 2-D F32 tensor", ti.Name)
		}
		if kind == "ffn_gate" {
			router := make([]byte, 4*int(ti.Dims[0])*nExpert)
			for j := 0; j < len(router); j += 4 {
				binary.LittleEndian.PutUint32(router[j:], math.Float32bits(float32(rng.NormFloat64())))
			}
			add(strings.TrimSuffix(base, kind)+"ffn_gate_inp.weight", []int64{ti.Dims[0], int64(nExpert)}, router)
		}
		add(base+"_exps.weight", []int64{ti.Dims[0], ti.Dims[1], int64(nExpert)}, bytes.Repeat(src.TensorData(ti), nExpert))
	}
	var out bytes.Buffer
	if _, err := w.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
