package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// The model fixtures carry llama.cpp's prompt tokenization
// (llama_tokenize(add_special = true, parse_special = false)) and the text
// of the generated tokens: the concatenation of llama_token_to_piece per
// token, EOG left out, stored as JSON text, i.e. with bytes that are not
// UTF-8 replaced by U+FFFD per maximal subpart (Python's errors="replace").
// reference-greedy.json renders pieces with special = false; the goldens
// show special tokens (special = true: <unk> appears as text).

type greedyFile struct {
	Models []struct {
		File string `json:"file"`
		Runs []struct {
			Prompt        string  `json:"prompt"`
			PromptIDs     []int32 `json:"prompt_ids"`
			GeneratedIDs  []int32 `json:"generated_ids"`
			GeneratedText string  `json:"generated_text"`
			Stop          string  `json:"stop"`
		} `json:"runs"`
	} `json:"models"`
}

type goldenFile struct {
	Cases []struct {
		Prompt        string  `json:"prompt"`
		Tokens        []int32 `json:"tokens"`
		NPrompt       int     `json:"n_prompt"`
		GeneratedText string  `json:"generated_text"`
		Stop          string  `json:"stop"`
	} `json:"cases"`
}

func TestReferenceGreedy(t *testing.T) {
	dir := testenv.ModelsDir(t)
	path := testenv.Require(t, filepath.Join(dir, "reference-greedy.json"))
	var ref greedyFile
	readJSON(t, path, &ref)
	if len(ref.Models) == 0 {
		t.Fatal("no models in reference-greedy.json")
	}
	for _, m := range ref.Models {
		t.Run(m.File, func(t *testing.T) {
			model := filepath.Join(dir, m.File)
			if _, err := os.Stat(model); err != nil {
				t.Skipf("%s is not in the fixtures (listed for the record only)", m.File)
			}
			tk := loadGGUF(t, model)
			for _, r := range m.Runs {
				checkPrompt(t, tk, r.Prompt, r.PromptIDs)
				checkGenerated(t, tk, r.GeneratedIDs, r.GeneratedText, false)
			}
		})
	}
}

func TestGoldens(t *testing.T) {
	dir := testenv.ModelsDir(t)
	files, _ := filepath.Glob(filepath.Join(testenv.Require(t, filepath.Join(dir, "goldens")), "*.json"))
	if len(files) == 0 {
		testenv.Missing(t, "no goldens in %s", dir)
	}
	for _, g := range files {
		name := strings.TrimSuffix(filepath.Base(g), ".json")
		t.Run(name, func(t *testing.T) {
			tk := loadGGUF(t, filepath.Join(dir, name+".gguf"))
			var gf goldenFile
			readJSON(t, g, &gf)
			for _, c := range gf.Cases {
				if c.NPrompt > len(c.Tokens) {
					t.Fatalf("n_prompt %d > %d tokens", c.NPrompt, len(c.Tokens))
				}
				checkPrompt(t, tk, c.Prompt, c.Tokens[:c.NPrompt])
				checkGenerated(t, tk, c.Tokens[c.NPrompt:], c.GeneratedText, true)
			}
		})
	}
}

func checkPrompt(t *testing.T, tk *Tokenizer, prompt string, want []int32) {
	t.Helper()
	if got := tk.Encode(prompt, true, false); !slices.Equal(got, want) {
		t.Errorf("Encode(%q):\n got %v\nwant %v", prompt, got, want)
	}
}

func checkGenerated(t *testing.T, tk *Tokenizer, ids []int32, want string, special bool) {
	t.Helper()
	var sb strings.Builder
	d := tk.NewStreamDecoder(special)
	var streamed strings.Builder
	for _, id := range ids {
		if tk.IsEOG(id) {
			break
		}
		sb.WriteString(tk.Piece(id, special))
		streamed.WriteString(d.Add(id))
	}
	streamed.WriteString(d.Flush())
	if got := lossyUTF8(sb.String()); got != want {
		t.Errorf("pieces of %v:\n got %q\nwant %q", ids, got, want)
	}
	if got := lossyUTF8(streamed.String()); got != want {
		t.Errorf("stream of %v:\n got %q\nwant %q", ids, got, want)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// lossyUTF8 replaces each maximal ill-formed subsequence by U+FFFD, the
// way Python's bytes.decode(errors="replace") does.
func lossyUTF8(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n > 1 {
			sb.WriteString(s[i : i+n])
			i += n
			continue
		}
		k := 1
		for i+k < len(s) && k < utf8.UTFMax && isCont(s[i+k]) && validPrefix([]byte(s[i:i+k+1])) {
			k++
		}
		sb.WriteRune(utf8.RuneError)
		i += k
	}
	return sb.String()
}
