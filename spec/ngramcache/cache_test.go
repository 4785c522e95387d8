package ngramcache

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/waggle-llm/waggle/spec"
)

// le writes int32s little-endian, as llama.cpp's loader reads them.
func le(vals ...int32) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// TestLoadLlamaFormat reads a file written byte by byte from the format
// description: n-gram (4×int32, -1 padded), entry count, (token, count)
// pairs; two records.
func TestLoadLlamaFormat(t *testing.T) {
	raw := append(le(5, 6, -1, -1, 2, 7, 3, 9, 1), le(5, -1, -1, -1, 1, 6, 4)...)
	if len(raw) != 9*4+7*4 {
		t.Fatalf("hand-built file has %d bytes", len(raw))
	}
	c, err := Load(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := c[Key([]int32{5, 6})]; len(got) != 2 || got[7] != 3 || got[9] != 1 {
		t.Fatalf("bigram record: %v", got)
	}
	if got := c[Key([]int32{5})]; got[6] != 4 {
		t.Fatalf("unigram record: %v", got)
	}
	var out bytes.Buffer
	if err := c.Save(&out); err != nil {
		t.Fatal(err)
	}
	// Sorted order puts {5,-1,..} before {5,6,..}: the same records.
	want := append(le(5, -1, -1, -1, 1, 6, 4), le(5, 6, -1, -1, 2, 7, 3, 9, 1)...)
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("saved bytes differ:\n got %v\nwant %v", out.Bytes(), want)
	}
	for name, bad := range map[string][]byte{
		"truncated": raw[:len(raw)-2], "zero entries": le(1, -1, -1, -1, 0),
		"bad count": le(1, -1, -1, -1, 1, 3, 0), "huge entries": le(1, -1, -1, -1, 1<<30),
		"empty ngram": le(-1, -1, -1, -1, 1, 3, 1),
	} {
		if _, err := Load(bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestRoundTripAndDraft(t *testing.T) {
	c := Cache{}
	h := []int32{1, 2, 3, 4, 1, 2, 3, 4, 1, 2}
	c.Update(1, MaxN, h, len(h))
	var b bytes.Buffer
	if err := c.Save(&b); err != nil {
		t.Fatal(err)
	}
	d, err := Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != len(c) || d[Key([]int32{1, 2})][3] != 2 {
		t.Fatalf("round trip lost data: %d vs %d records", len(d), len(c))
	}
	s, _ := New(8, "", "")
	r := &spec.Request{NMax: 4, History: h, Last: 3}
	s.Draft([]*spec.Request{r})
	if len(r.Draft) == 0 || r.Draft[0] != 4 {
		t.Fatalf("draft %v, want to start with 4", r.Draft)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(le(5, 6, -1, -1, 2, 7, 3, 9, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Load(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := c.Save(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(&out); err != nil {
			t.Fatalf("re-load of saved cache: %v", err)
		}
	})
}
