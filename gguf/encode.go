package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// encoder writes little-endian v2/v3 fields through a buffer, counting bytes
// and keeping the first write error.
type encoder struct {
	w   *bufio.Writer
	n   int64
	err error
	buf [8]byte
}

func newEncoder(out io.Writer) *encoder {
	return &encoder{w: bufio.NewWriterSize(out, 1<<20)}
}

func (e *encoder) bytes(p []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(p)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	if e.err == nil {
		n, err := e.w.WriteString(s)
		e.n += int64(n)
		e.err = err
	}
}

func (e *encoder) u8(x uint8)   { e.buf[0] = x; e.bytes(e.buf[:1]) }
func (e *encoder) u16(x uint16) { binary.LittleEndian.PutUint16(e.buf[:], x); e.bytes(e.buf[:2]) }
func (e *encoder) u32(x uint32) { binary.LittleEndian.PutUint32(e.buf[:], x); e.bytes(e.buf[:4]) }
func (e *encoder) u64(x uint64) { binary.LittleEndian.PutUint64(e.buf[:], x); e.bytes(e.buf[:8]) }

var zeroPage [4096]byte

// zeros writes n zero bytes (padding).
func (e *encoder) zeros(n int64) {
	for n > 0 && e.err == nil {
		k := min(n, int64(len(zeroPage)))
		e.bytes(zeroPage[:k])
		n -= k
	}
}

func (e *encoder) flush() error {
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

// kv writes one key/value pair after checking the key.
func (e *encoder) kv(key string, v Value) error {
	if key == "" || !utf8.ValidString(key) {
		return fmt.Errorf("gguf: key %q: empty or not valid UTF-8", key)
	}
	if !v.IsValid() {
		return fmt.Errorf("gguf: key %q: zero Value", key)
	}
	e.str(key)
	e.u32(uint32(v.typ))
	if err := e.value(v, 0); err != nil {
		return fmt.Errorf("gguf: key %q: %w", key, err)
	}
	return nil
}

// value writes the body of v (the type tag already written).
func (e *encoder) value(v Value, depth int) error {
	if a, ok := v.x.(*array); ok && v.typ == ValueArray {
		return e.array(a, depth+1)
	}
	switch x := v.x.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case bool:
		e.u8(b2u(x))
	case string:
		e.str(x)
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	default:
		return fmt.Errorf("invalid value of type %s", v.typ)
	}
	if t, _ := scalarType(v.x); t != v.typ {
		return fmt.Errorf("value tagged %s holds %T", v.typ, v.x)
	}
	return nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// scalarType returns the type tag matching a Go scalar.
func scalarType(x any) (ValueType, bool) {
	switch x.(type) {
	case uint8:
		return ValueUint8, true
	case int8:
		return ValueInt8, true
	case uint16:
		return ValueUint16, true
	case int16:
		return ValueInt16, true
	case uint32:
		return ValueUint32, true
	case int32:
		return ValueInt32, true
	case float32:
		return ValueFloat32, true
	case bool:
		return ValueBool, true
	case string:
		return ValueString, true
	case uint64:
		return ValueUint64, true
	case int64:
		return ValueInt64, true
	case float64:
		return ValueFloat64, true
	}
	return 0, false
}
