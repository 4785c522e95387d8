package gguf

import (
	"errors"
	"fmt"
)

// Sentinel causes, for errors.Is on a *FormatError.
var (
	ErrBadMagic    = errors.New("not a GGUF file")
	ErrVersion     = errors.New("unsupported GGUF version")
	ErrTruncated   = errors.New("unexpected end of data")
	ErrInvalid     = errors.New("invalid GGUF content")
	ErrUnknownType = errors.New("unknown type")
)

// FormatError reports malformed input: which field, at which absolute byte
// offset, and why.
type FormatError struct {
	Path   string // file name when the input came from Open, else ""
	Field  string // e.g. `header`, `key "general.name"`, `tensor "output.weight"`
	Offset int64  // absolute file offset where the bad field starts
	Msg    string
	Err    error // one of the sentinel errors above
}

func (e *FormatError) Error() string {
	where := "gguf: "
	if e.Path != "" {
		where += e.Path + ": "
	}
	return fmt.Sprintf("%s%s at offset %d: %s", where, e.Field, e.Offset, e.Msg)
}

// Unwrap returns the sentinel cause.
func (e *FormatError) Unwrap() error { return e.Err }
