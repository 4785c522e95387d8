package engine

import (
	"fmt"

	"github.com/waggle-llm/waggle/gguf"
)

// Meta reads architecture-scoped hyper-parameters ("<arch>.<key>") from a
// GGUF file with clear errors, the way llama.cpp's llama_model_loader does.
type Meta struct {
	F    *gguf.File
	Arch string
}

// key returns "<arch>.<suffix>".
func (m Meta) key(suffix string) string { return m.Arch + "." + suffix }

// RequiredInt reads a positive integer hyper-parameter.
func (m Meta) RequiredInt(suffix string) (int, error) {
	v, ok := m.F.Uint(m.key(suffix))
	if !ok {
		return 0, fmt.Errorf("missing or non-integer metadata %q", m.key(suffix))
	}
	if v == 0 || v > 1<<31 {
		return 0, fmt.Errorf("metadata %q = %d out of range", m.key(suffix), v)
	}
	return int(v), nil
}

// Int reads an optional integer hyper-parameter.
func (m Meta) Int(suffix string, def int) (int, error) {
	k := m.key(suffix)
	if _, present := m.F.Get(k); !present {
		return def, nil
	}
	v, ok := m.F.Uint(k)
	if !ok || v > 1<<31 {
		return 0, fmt.Errorf("metadata %q is not a small non-negative integer", k)
	}
	return int(v), nil
}

// Float reads an optional float hyper-parameter.
func (m Meta) Float(suffix string, def float32) (float32, error) {
	k := m.key(suffix)
	if _, present := m.F.Get(k); !present {
		return def, nil
	}
	v, ok := m.F.Float(k)
	if !ok {
		return 0, fmt.Errorf("metadata %q is not a number", k)
	}
	return float32(v), nil
}

// String reads an optional string hyper-parameter.
func (m Meta) String(suffix, def string) string {
	if v, ok := m.F.String(m.key(suffix)); ok {
		return v
	}
	return def
}
