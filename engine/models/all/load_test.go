package all_test

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/all"
	"github.com/waggle-llm/waggle/gguf"
)

// Tiny shapes of the hostile-input models: every architecture with a few
// F32 tensors of zeros, so one file is a few KiB.
const (
	tE, tH, tKV, tD, tFF = 8, 2, 1, 4, 16 // n_embd, heads, kv heads, head dim, ffn
	tV                   = 8              // vocabulary
	tX, tXU, tFFX        = 4, 2, 8        // experts, used, expert ffn
	tConvK, tDK, tHK     = 4, 4, 1        // DeltaNet conv taps, state size, key heads
	tHV                  = 2              // value heads
	tInner               = tHV * tDK
	tConvDim             = 2*tHK*tDK + tInner
)

// tinyModel is one architecture's metadata and tensor shapes.
type tinyModel struct {
	arch    string
	kv      []kvPair
	tensors []tensorShape
}

type kvPair struct {
	key string
	val gguf.Value
}

type tensorShape struct {
	name string
	dims []int64
}

func u32(k string, v uint32) kvPair { return kvPair{k, gguf.Uint32Value(v)} }

// tinyModels lists one small file per architecture family the loaders
// handle: dense llama/qwen2/qwen3, qwen3moe, and the hybrids.
func tinyModels() []tinyModel {
	return []tinyModel{
		llamaLike("llama", false, false),
		llamaLike("qwen2", false, false),
		llamaLike("qwen3", true, false),
		llamaLike("qwen3moe", true, true),
		hybrid("qwen35", false, false),
		hybrid("qwen35moe", true, false),
		hybrid("qwen3next", true, true),
	}
}

func common(arch string, nLayer int) tinyModel {
	m := tinyModel{arch: arch}
	m.kv = []kvPair{
		u32(arch+".context_length", 64), u32(arch+".embedding_length", tE), u32(arch+".block_count", uint32(nLayer)),
		u32(arch+".attention.head_count", tH), u32(arch+".attention.head_count_kv", tKV),
		u32(arch+".attention.key_length", tD), u32(arch+".attention.value_length", tD),
		u32(arch+".rope.dimension_count", tD),
		u32("tokenizer.ggml.bos_token_id", 1), u32("tokenizer.ggml.eos_token_id", 2),
	}
	m.tensors = []tensorShape{{"token_embd.weight", []int64{tE, tV}}, {"output_norm.weight", []int64{tE}}}
	return m
}

func (m *tinyModel) add(name string, dims ...int64) {
	m.tensors = append(m.tensors, tensorShape{name, dims})
}

func (m *tinyModel) experts(p string) {
	m.add(p+"ffn_gate_inp.weight", tE, tX)
	m.add(p+"ffn_gate_exps.weight", tE, tFFX, tX)
	m.add(p+"ffn_up_exps.weight", tE, tFFX, tX)
	m.add(p+"ffn_down_exps.weight", tFFX, tE, tX)
}

func (m *tinyModel) denseFFN(p string) {
	m.add(p+"ffn_gate.weight", tE, tFF)
	m.add(p+"ffn_up.weight", tE, tFF)
	m.add(p+"ffn_down.weight", tFF, tE)
}

func llamaLike(arch string, qkNorm, moe bool) tinyModel {
	m := common(arch, 2)
	m.kv = append(m.kv, u32(arch+".feed_forward_length", tFF))
	if moe {
		m.kv = append(m.kv, u32(arch+".expert_count", tX), u32(arch+".expert_used_count", tXU), u32(arch+".expert_feed_forward_length", tFFX))
	}
	for l := range 2 {
		p := fmt.Sprintf("blk.%d.", l)
		m.add(p+"attn_norm.weight", tE)
		m.add(p+"ffn_norm.weight", tE)
		m.add(p+"attn_q.weight", tE, tH*tD)
		m.add(p+"attn_k.weight", tE, tKV*tD)
		m.add(p+"attn_v.weight", tE, tKV*tD)
		m.add(p+"attn_output.weight", tH*tD, tE)
		if qkNorm {
			m.add(p+"attn_q_norm.weight", tD)
			m.add(p+"attn_k_norm.weight", tD)
		}
		if moe {
			m.experts(p)
		} else {
			m.denseFFN(p)
		}
	}
	return m
}

// hybrid is a two-layer qwen35-family model: layer 0 Gated DeltaNet,
// layer 1 full attention (full_attention_interval 2).
func hybrid(arch string, moe, fusedBA bool) tinyModel {
	m := common(arch, 2)
	m.kv = append(m.kv, u32(arch+".full_attention_interval", 2), u32(arch+".ssm.conv_kernel", tConvK),
		u32(arch+".ssm.state_size", tDK), u32(arch+".ssm.group_count", tHK), u32(arch+".ssm.time_step_rank", tHV),
		u32(arch+".ssm.inner_size", tInner))
	if moe {
		m.kv = append(m.kv, u32(arch+".expert_count", tX), u32(arch+".expert_used_count", tXU),
			u32(arch+".expert_feed_forward_length", tFFX), u32(arch+".expert_shared_feed_forward_length", tFF))
	} else {
		m.kv = append(m.kv, u32(arch+".feed_forward_length", tFF))
	}
	for l := range 2 {
		p := fmt.Sprintf("blk.%d.", l)
		m.add(p+"attn_norm.weight", tE)
		m.add(p+"post_attention_norm.weight", tE)
		if l == 0 {
			m.add(p+"attn_qkv.weight", tE, tConvDim)
			m.add(p+"attn_gate.weight", tE, tInner)
			m.add(p+"ssm_dt.bias", tHV)
			m.add(p+"ssm_a", tHV)
			m.add(p+"ssm_norm.weight", tDK)
			m.add(p+"ssm_out.weight", tInner, tE)
			m.add(p+"ssm_conv1d.weight", tConvK, tConvDim)
			if fusedBA {
				m.add(p+"ssm_ba.weight", tE, 2*tHV)
			} else {
				m.add(p+"ssm_beta.weight", tE, tHV)
				m.add(p+"ssm_alpha.weight", tE, tHV)
			}
		} else {
			m.add(p+"attn_q.weight", tE, 2*tH*tD)
			m.add(p+"attn_k.weight", tE, tKV*tD)
			m.add(p+"attn_v.weight", tE, tKV*tD)
			m.add(p+"attn_output.weight", tH*tD, tE)
			m.add(p+"attn_q_norm.weight", tD)
			m.add(p+"attn_k_norm.weight", tD)
		}
		if moe {
			m.experts(p)
			m.add(p+"ffn_gate_shexp.weight", tE, tFF)
			m.add(p+"ffn_up_shexp.weight", tE, tFF)
			m.add(p+"ffn_down_shexp.weight", tFF, tE)
			m.add(p+"ffn_gate_inp_shexp.weight", tE)
		} else {
			m.denseFFN(p)
		}
	}
	return m
}

// bytes writes the model, with override (when valid) replacing the value
// of the key at index key of m.kv.
func (m tinyModel) bytes(t testing.TB, key int, override gguf.Value) []byte {
	w := gguf.NewWriter(32)
	w.AddKV("general.architecture", gguf.StringValue(m.arch))
	w.AddKV("tokenizer.ggml.model", gguf.StringValue("llama"))
	toks := []string{"<unk>", "<s>", "</s>", "▁", "a", "b", "▁a", "▁b"}
	w.AddKV("tokenizer.ggml.tokens", gguf.StringsValue(toks))
	w.AddKV("tokenizer.ggml.scores", gguf.Float32sValue(make([]float32, len(toks))))
	w.AddKV("tokenizer.ggml.token_type", gguf.Int32sValue([]int32{2, 3, 3, 1, 1, 1, 1, 1}))
	for i, kv := range m.kv {
		if i == key && override.IsValid() {
			kv.val = override
		}
		w.AddKV(kv.key, kv.val)
	}
	for _, ts := range m.tensors {
		n := int64(1)
		for _, d := range ts.dims {
			n *= d
		}
		if err := w.AddTensor(ts.name, gguf.TypeF32, ts.dims, make([]byte, 4*n)); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// maxLoadAlloc bounds what loading a tiny model and opening a small session
// may allocate: hyper-parameters that size buffers are checked against the
// file's tensors first, so a hostile value never drives an allocation.
const maxLoadAlloc = 64 << 20

// loadBounded loads data and opens a 16-position session on success,
// failing t if that allocates more than maxLoadAlloc bytes.
func loadBounded(t testing.TB, data []byte) error {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := engine.LoadBytes(data)
	if err == nil {
		var s engine.Session
		s, err = l.Model.NewSession(engine.SessionOptions{NCtx: 16, NSeq: 1, NBatch: 4})
		_ = s
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > maxLoadAlloc {
		t.Fatalf("loading a %d-byte file allocated %d MiB", len(data), got>>20)
	}
	return err
}

// TestTinyModelsLoad: the fuzz seeds are valid models of every family.
func TestTinyModelsLoad(t *testing.T) {
	for _, m := range tinyModels() {
		if err := loadBounded(t, m.bytes(t, -1, gguf.Value{})); err != nil {
			t.Errorf("%s: %v", m.arch, err)
		}
	}
}

// TestHostileHparams: counts and widths far beyond what the file's tensors
// hold are refused with an error naming the key, before anything is
// allocated by them.
func TestHostileHparams(t *testing.T) {
	for _, m := range tinyModels() {
		for i, kv := range m.kv {
			if !strings.HasPrefix(kv.key, m.arch+".") {
				continue
			}
			for _, v := range []uint32{1 << 20, math.MaxInt32} {
				t.Run(fmt.Sprintf("%s=%d", kv.key, v), func(t *testing.T) {
					if err := loadBounded(t, m.bytes(t, i, gguf.Uint32Value(v))); err == nil && slices.Contains(sizingKeys, strings.TrimPrefix(kv.key, m.arch+".")) {
						t.Fatalf("%s = %d loaded", kv.key, v)
					}
				})
			}
		}
	}
}

// sizingKeys are the hyper-parameters a loader or session sizes memory by;
// a value the tensors do not back must be an error. (context_length is
// informative: sessions take their context from the caller.)
var sizingKeys = []string{
	"embedding_length", "block_count", "attention.head_count", "attention.head_count_kv",
	"attention.key_length", "attention.value_length", "expert_count", "expert_used_count",
	"expert_feed_forward_length", "expert_shared_feed_forward_length", "ssm.conv_kernel",
	"ssm.state_size", "ssm.group_count", "ssm.time_step_rank", "ssm.inner_size",
}

// FuzzLoadModel drives every model loader on tiny files with one metadata
// value replaced (any integer, float or string) and optionally one byte
// flipped: each must load or fail with an error, never panic or allocate
// beyond maxLoadAlloc.
func FuzzLoadModel(f *testing.F) {
	models := tinyModels()
	for mi, m := range models {
		for ki := range m.kv {
			f.Add(uint8(mi), uint8(ki), uint8(0), uint64(math.MaxInt32), uint32(0))
		}
		f.Add(uint8(mi), uint8(2), uint8(2), uint64(1<<40), uint32(0))
		f.Add(uint8(mi), uint8(0), uint8(5), uint64(0), uint32(97))
	}
	f.Fuzz(func(t *testing.T, model, key, kind uint8, val uint64, flip uint32) {
		m := models[int(model)%len(models)]
		var v gguf.Value
		switch kind % 6 {
		case 0:
			v = gguf.Uint32Value(uint32(val))
		case 1:
			v = gguf.Int32Value(int32(val))
		case 2:
			v = gguf.Uint64Value(val)
		case 3:
			v = gguf.Float32Value(math.Float32frombits(uint32(val)))
		case 4:
			v = gguf.StringValue(fmt.Sprint(val))
		}
		data := m.bytes(t, int(key)%len(m.kv), v)
		if flip != 0 {
			data[int(flip)%len(data)] ^= byte(flip >> 24)
		}
		_ = loadBounded(t, data)
	})
}
