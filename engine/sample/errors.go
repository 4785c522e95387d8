package sample

import "fmt"

// ParamError is a parameter out of range, named by its request field
// (llama-server's name: "top_k", "dry_base", "samplers", ...), so that a
// server can answer 400 naming it.
type ParamError struct {
	Field string
	Msg   string
}

func (e *ParamError) Error() string { return "sample: " + e.Msg }

// ParamField returns the request field the error is about.
func (e *ParamError) ParamField() string { return e.Field }

func paramErr(field, format string, args ...any) error {
	return &ParamError{Field: field, Msg: fmt.Sprintf(format, args...)}
}
