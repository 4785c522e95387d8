package chat

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// ErrBudget is wrapped by the error of a render that ran out of its step,
// memory or nesting budget: the template, not the request, is at fault.
var ErrBudget = errors.New("chat template exceeded its render budget")

// Render budgets. A step is one loop iteration (charged up front, for the
// whole iterable), macro call, filter or method call, operator or output;
// bytes are what those produce (strings, list elements at 16 bytes each),
// charged as they are made, so the budget bounds the work of a render, not
// only what it keeps. Real chat templates use a few dozen steps and a few
// times their input in bytes per message.
const (
	// MaxSteps bounds a render's steps (about a second of gonja's work).
	MaxSteps = 1 << 20
	// baseBytes plus bytesPerInput times the size of the inputs bounds a
	// render's bytes.
	baseBytes     = 64 << 20
	bytesPerInput = 32
	// maxDepth bounds nested macro calls and the depth of recursive loops
	// (Go aborts the process on a stack overflow; no panic is raised).
	maxDepth = 200
	// macroSteps is what a macro call costs: gonja builds a renderer and
	// a context for it, some twenty times the work of an operator.
	macroSteps = 20
	// maxSource and maxNesting bound what the parser accepts; its
	// recursion is as deep as the template's nesting.
	maxSource  = 1 << 20
	maxNesting = 128
	// elemBytes is what one list or dict element counts as.
	elemBytes = 16
)

// budget is one render's allowance. A template instance owns one and its
// guards (sandbox.go) charge it; it is reset before each render.
type budget struct {
	steps, bytes int64 // left
	err          error // the first exhaustion; sticky for the render
	nesting      int   // macro and caller() bodies running
}

// stepLimit and byteBase are MaxSteps and baseBytes; tests lower them to
// run hostile templates quickly.
var stepLimit, byteBase int64 = MaxSteps, baseBytes

func (b *budget) reset(inputBytes int) {
	b.steps, b.bytes, b.err, b.nesting = stepLimit, byteBase+bytesPerInput*int64(inputBytes), nil, 0
}

// charge takes steps and bytes; it fails (and keeps failing) once either
// runs out.
func (b *budget) charge(steps, bytes int64) error {
	if b.err != nil {
		return b.err
	}
	b.steps -= steps
	b.bytes -= bytes
	switch {
	case b.steps < 0:
		b.err = fmt.Errorf("%w: more than %d steps", ErrBudget, stepLimit)
	case b.bytes < 0:
		b.err = fmt.Errorf("%w: it built more than its memory allowance", ErrBudget)
	}
	return b.err
}

// tooDeep records a nesting past maxDepth.
func (b *budget) tooDeep() error {
	if b.err == nil {
		b.err = fmt.Errorf("%w: macros or recursive loops nested deeper than %d", ErrBudget, maxDepth)
	}
	return b.err
}

// fail returns err as a gonja error value.
func fail(err error) *exec.Value { return exec.AsValue(err) }

// size is the bytes a value holds, counting nested elements at elemBytes
// each, and stopping as soon as it passes limit (so the walk costs at most
// what it charges: values that share parts, which the walk counts once per
// path, cannot make it exponential).
func size(v any, limit int64) int64 {
	var n int64
	var walk func(rv reflect.Value, depth int)
	walk = func(rv reflect.Value, depth int) {
		if n > limit || depth > 64 {
			n = limit + 1
			return
		}
		for rv.Kind() == reflect.Interface || rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				n++
				return
			}
			if val, ok := rv.Interface().(*exec.Value); ok {
				rv = val.Val
				continue
			}
			if d, ok := rv.Interface().(*exec.Dict); ok {
				for _, p := range d.Pairs {
					n += elemBytes
					walk(reflect.ValueOf(p.Key), depth+1)
					walk(reflect.ValueOf(p.Value), depth+1)
				}
				return
			}
			rv = rv.Elem()
		}
		switch rv.Kind() {
		case reflect.String:
			n += int64(rv.Len())
		case reflect.Slice, reflect.Array:
			for i := range rv.Len() {
				n += elemBytes
				if walk(rv.Index(i), depth+1); n > limit {
					return
				}
			}
		case reflect.Map:
			it := rv.MapRange()
			for it.Next() {
				n += elemBytes
				walk(it.Key(), depth+1)
				if walk(it.Value(), depth+1); n > limit {
					return
				}
			}
		case reflect.Struct:
			n += elemBytes // loop infos, namespaces, cyclers: small
		default:
			n += 8
		}
	}
	walk(reflect.ValueOf(v), 0)
	return n
}

// chargeValues charges one step and the sizes of vs.
func (b *budget) chargeValues(vs ...*exec.Value) error {
	var n int64
	for _, v := range vs {
		if v != nil {
			n += size(v, b.bytes-n)
		}
	}
	return b.charge(1, n)
}
