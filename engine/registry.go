package engine

import (
	"fmt"
	"sort"
	"sync"

	"github.com/waggle-llm/waggle/engine/tokenizer"
	"github.com/waggle-llm/waggle/gguf"
)

// Loader builds a Model from an opened GGUF file. The file stays open (its
// tensors are mmapped) for the model's lifetime.
type Loader func(f *gguf.File) (Model, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Loader{}
)

// Register makes an architecture loadable. Architecture packages call it from
// init; cmd/waggle imports them through engine/models/all.
func Register(arch string, l Loader) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[arch]; dup {
		panic("engine: architecture registered twice: " + arch)
	}
	registry[arch] = l
}

// Architectures lists the registered architecture names, sorted.
func Architectures() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Loaded is a model with its tokenizer and the file it lives in.
type Loaded struct {
	File      *gguf.File
	Model     Model
	Tokenizer *tokenizer.Tokenizer
}

// Close releases the file mapping. Sessions must not be used afterwards.
func (l *Loaded) Close() error { return l.File.Close() }

// LoadFile opens a GGUF file and builds its model and tokenizer.
func LoadFile(path string) (*Loaded, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	l, err := load(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// LoadBytes builds a model from an in-memory GGUF (the embedded demo model).
func LoadBytes(data []byte) (*Loaded, error) {
	f, err := gguf.Parse(data)
	if err != nil {
		return nil, err
	}
	return load(f)
}

func load(f *gguf.File) (*Loaded, error) {
	arch := f.Architecture()
	registryMu.RLock()
	loader, ok := registry[arch]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unsupported architecture %q (supported: %v)", arch, Architectures())
	}
	if len(f.Tensors) == 0 {
		return nil, fmt.Errorf("the file has no tensors (a vocabulary-only GGUF?): nothing to run")
	}
	m, err := loader(f)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return &Loaded{File: f, Model: m, Tokenizer: tok}, nil
}
