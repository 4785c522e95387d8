package tokenizer

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// vocabFiles are the llama.cpp vocab-only files, by the name in
// ggml-vocab-<name>.gguf.
var vocabFiles = []string{
	"baichuan", "bert-bge", "deepseek-coder", "deepseek-llm", "falcon", "gpt-2", "gpt-neox",
	"llama-bpe", "llama-spm", "mpt", "phi-3", "qwen2", "refact", "starcoder",
}

var (
	tokCacheMu sync.Mutex
	tokCache   = map[string]*Tokenizer{}
)

// loadGGUF builds (once per test binary) the tokenizer of a GGUF file.
func loadGGUF(t testing.TB, path string) *Tokenizer {
	t.Helper()
	testenv.Require(t, path)
	tokCacheMu.Lock()
	defer tokCacheMu.Unlock()
	if tk, ok := tokCache[path]; ok {
		return tk
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	tk, err := FromGGUF(f)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	tokCache[path] = tk
	return tk
}

// vocabPath is the path of ggml-vocab-<name>.gguf.
func vocabPath(t testing.TB, name string) string {
	return filepath.Join(testenv.TestdataDir(t), "tokenizer", "ggml-vocab-"+name+".gguf")
}

func loadVocab(t testing.TB, name string) *Tokenizer {
	t.Helper()
	return loadGGUF(t, vocabPath(t, name))
}
