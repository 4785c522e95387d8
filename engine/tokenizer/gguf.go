package tokenizer

import "github.com/waggle-llm/waggle/gguf"

// VocabFromGGUF reads the vocabulary of a GGUF file (tokenizer.ggml.* keys)
// with llama.cpp's defaults applied. It refuses unknown tokenizer models and
// pre-tokenizers by name. The result does not depend on f staying open.
func VocabFromGGUF(f *gguf.File) (*Vocab, error) { return vocabFromMeta(f) }

// FromGGUF builds the tokenizer of a GGUF file; f may be closed afterwards.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	v, err := VocabFromGGUF(f)
	if err != nil {
		return nil, err
	}
	return New(v)
}
