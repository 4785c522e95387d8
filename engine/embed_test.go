package engine

import (
	"bytes"
	"math"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
)

func TestParsePooling(t *testing.T) {
	for i, name := range []string{"none", "mean", "cls", "last", "rank"} {
		p, err := ParsePooling(name)
		if err != nil || p != Pooling(i) || p.String() != name {
			t.Fatalf("%s: %v %v", name, p, err)
		}
	}
	if p, err := ParsePooling("MEAN"); err != nil || p != PoolingMean {
		t.Fatalf("case-insensitive: %v %v", p, err)
	}
	if _, err := ParsePooling("max"); err == nil {
		t.Fatal("unknown pooling accepted")
	}
}

func TestModelPooling(t *testing.T) {
	file := func(kvs ...gguf.KV) *gguf.File {
		w := gguf.NewWriter(32)
		w.AddKV("general.architecture", gguf.StringValue("llama"))
		for _, kv := range kvs {
			w.AddKV(kv.Key, kv.Value)
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		f, err := gguf.Parse(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if p, err := ModelPooling(file()); err != nil || p != PoolingNone {
		t.Fatalf("absent key: %v %v", p, err)
	}
	if p, err := ModelPooling(file(gguf.KV{Key: "llama.pooling_type", Value: gguf.Uint32Value(3)})); err != nil || p != PoolingLast {
		t.Fatalf("last: %v %v", p, err)
	}
	for _, bad := range []gguf.Value{gguf.Uint32Value(5), gguf.Int32Value(-1), gguf.StringValue("mean")} {
		if _, err := ModelPooling(file(gguf.KV{Key: "llama.pooling_type", Value: bad})); err == nil {
			t.Fatalf("pooling_type %v accepted", bad)
		}
	}
}

func TestPooler(t *testing.T) {
	rows := [][]float32{{1, 2}, {3, -4}, {5, 0}}
	want := map[Pooling][][]float32{
		PoolingNone: rows,
		PoolingMean: {{3, -2.0 / 3}},
		PoolingCLS:  {{1, 2}},
		PoolingLast: {{5, 0}},
	}
	for kind, w := range want {
		p, err := NewPooler(kind)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rows() != nil {
			t.Fatalf("%s: rows before any Add", kind)
		}
		for _, r := range rows {
			p.Add(r)
		}
		got := p.Rows()
		if len(got) != len(w) {
			t.Fatalf("%s: %d rows, want %d", kind, len(got), len(w))
		}
		for i := range w {
			for j := range w[i] {
				if math.Abs(float64(got[i][j]-w[i][j])) > 1e-7 {
					t.Fatalf("%s: %v, want %v", kind, got, w)
				}
			}
		}
	}
	p, _ := NewPooler(PoolingNone)
	row := []float32{7, 7}
	p.Add(row)
	row[0] = 0
	if p.Rows()[0][0] != 7 {
		t.Fatal("the pooler keeps the caller's slice, not a copy")
	}
	if _, err := NewPooler(PoolingRank); err == nil {
		t.Fatal("rank pooling accepted without a classifier head")
	}
}

func TestNeedsRow(t *testing.T) {
	for pos, want := range []bool{true, false, false} {
		if PoolingCLS.NeedsRow(pos, 3) != want || PoolingLast.NeedsRow(2-pos, 3) != want {
			t.Fatalf("position %d", pos)
		}
		if !PoolingMean.NeedsRow(pos, 3) || !PoolingNone.NeedsRow(pos, 3) {
			t.Fatalf("mean/none skip position %d", pos)
		}
	}
}

// TestNormalize follows common_embd_normalize: none, max-abs to int16
// range, Euclidean, p-norm; a zero vector stays zero.
func TestNormalize(t *testing.T) {
	src := []float32{3, -4}
	cases := []struct {
		norm int
		want []float32
	}{
		{-1, []float32{3, -4}},
		{0, []float32{3 * 32760 / 4.0, -32760}},
		{2, []float32{0.6, -0.8}},
		{1, []float32{3.0 / 7, -4.0 / 7}},
		{3, []float32{float32(3 / math.Cbrt(91)), float32(-4 / math.Cbrt(91))}},
	}
	for _, c := range cases {
		got := make([]float32, 2)
		Normalize(got, src, c.norm)
		for i := range got {
			if math.Abs(float64(got[i]-c.want[i])) > 1e-5*math.Max(1, math.Abs(float64(c.want[i]))) {
				t.Fatalf("norm %d: %v, want %v", c.norm, got, c.want)
			}
		}
	}
	z := []float32{0, 0}
	Normalize(z, z, 2)
	if z[0] != 0 || z[1] != 0 {
		t.Fatalf("zero vector became %v", z)
	}
}
