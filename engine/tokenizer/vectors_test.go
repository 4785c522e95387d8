package tokenizer

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestVectors checks every .inp/.out pair whose vocab file is present
// against llama.cpp's test-tokenizer-0 results (add_special = false,
// parse_special = false).
func TestVectors(t *testing.T) {
	for _, name := range vocabFiles {
		t.Run(name, func(t *testing.T) {
			inp, err := os.ReadFile(vocabPath(t, name) + ".inp")
			if os.IsNotExist(err) {
				t.Skipf("no .inp/.out for %s upstream", name)
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := os.ReadFile(vocabPath(t, name) + ".out")
			if err != nil {
				t.Fatal(err)
			}
			tk := loadVocab(t, name)
			cases := strings.Split(string(inp), "\n__ggml_vocab_test__\n")
			if cases[len(cases)-1] == "" {
				cases = cases[:len(cases)-1]
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) != len(cases) {
				t.Fatalf("%d inputs, %d outputs", len(cases), len(lines))
			}
			for i, text := range cases {
				want := parseIDs(t, lines[i])
				if got := tk.Encode(text, false, false); !slices.Equal(got, want) {
					t.Errorf("case %d %q:\n got %v\nwant %v", i, text, got, want)
				}
			}
		})
	}
}

func parseIDs(t testing.TB, line string) []int32 {
	t.Helper()
	ids := []int32{}
	for _, f := range strings.Fields(line) {
		n, err := strconv.ParseInt(f, 10, 32)
		if err != nil {
			t.Fatalf("bad id %q", f)
		}
		ids = append(ids, int32(n))
	}
	return ids
}
