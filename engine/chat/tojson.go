package chat

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// filterToJSON is transformers' tojson: json.dumps(x, ensure_ascii=False,
// indent=indent) with Python's separators, keeping the key order of
// request JSON (see keyOrder) and of dict literals; other maps are sorted.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	opts := pyJSON{}
	if v, ok := params.KwArgs["indent"]; ok && v.IsInteger() {
		opts.indent, opts.pretty = v.Integer(), true
	}
	if v, ok := params.KwArgs["ensure_ascii"]; ok {
		opts.ascii = v.IsTrue()
	}
	var sb strings.Builder
	if err := opts.write(&sb, in.Interface(), 0); err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	return exec.AsSafeValue(sb.String())
}

// pyJSON writes values the way Python's json.dumps does.
type pyJSON struct {
	indent int
	pretty bool
	ascii  bool
}

// ToJSON encodes v as the tojson filter does (for tests and callers).
func ToJSON(v any) (string, error) {
	var sb strings.Builder
	err := pyJSON{}.write(&sb, v, 0)
	return sb.String(), err
}

func (p pyJSON) write(sb *strings.Builder, v any, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("value nested deeper than %d", maxJSONDepth)
	}
	switch t := v.(type) {
	case nil:
		sb.WriteString("null")
	case *exec.Value:
		return p.write(sb, t.Interface(), depth)
	case *exec.Dict:
		return p.writeDict(sb, t, depth)
	case exec.Dict:
		return p.writeDict(sb, &t, depth)
	case string:
		p.writeString(sb, t)
	case bool:
		sb.WriteString(map[bool]string{true: "true", false: "false"}[t])
	case json.Number:
		sb.WriteString(t.String())
	case map[string]any:
		return p.writeMap(sb, t, depth)
	case []any:
		return p.writeList(sb, len(t), func(i int) any { return t[i] }, depth)
	default:
		return p.writeReflect(sb, reflect.ValueOf(v), depth)
	}
	return nil
}

func (p pyJSON) writeReflect(sb *strings.Builder, rv reflect.Value, depth int) error {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sb.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		sb.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		sb.WriteString(pyFloat(rv.Float()))
	case reflect.Slice, reflect.Array:
		return p.writeList(sb, rv.Len(), func(i int) any { return rv.Index(i).Interface() }, depth)
	case reflect.Map:
		m := map[string]any{}
		for _, k := range rv.MapKeys() {
			m[fmt.Sprint(k.Interface())] = rv.MapIndex(k).Interface()
		}
		return p.writeMap(sb, m, depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			sb.WriteString("null")
			return nil
		}
		return p.write(sb, rv.Elem().Interface(), depth)
	default:
		p.writeString(sb, fmt.Sprint(rv.Interface()))
	}
	return nil
}

// pyFloat prints a float like Python's repr: "1.0", "0.5", "1e-07".
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

func (p pyJSON) newline(sb *strings.Builder, depth int) {
	if p.pretty {
		sb.WriteByte('\n')
		sb.WriteString(strings.Repeat(" ", p.indent*depth))
	}
}

func (p pyJSON) itemSep() string {
	if p.pretty {
		return ","
	}
	return ", "
}

func (p pyJSON) writeList(sb *strings.Builder, n int, at func(int) any, depth int) error {
	if n == 0 {
		sb.WriteString("[]")
		return nil
	}
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteString(p.itemSep())
		}
		p.newline(sb, depth+1)
		if err := p.write(sb, at(i), depth+1); err != nil {
			return err
		}
	}
	p.newline(sb, depth)
	sb.WriteByte(']')
	return nil
}

func (p pyJSON) writeMap(sb *strings.Builder, m map[string]any, depth int) error {
	keys, ok := orderedKeys(m)
	if !ok {
		keys = make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	}
	return p.writeObject(sb, keys, func(k string) any { return m[k] }, depth)
}

func (p pyJSON) writeDict(sb *strings.Builder, d *exec.Dict, depth int) error {
	keys := make([]string, len(d.Pairs))
	vals := make(map[string]any, len(d.Pairs))
	for i, pr := range d.Pairs {
		keys[i] = pr.Key.String()
		vals[keys[i]] = pr.Value
	}
	return p.writeObject(sb, keys, func(k string) any { return vals[k] }, depth)
}

func (p pyJSON) writeObject(sb *strings.Builder, keys []string, at func(string) any, depth int) error {
	if len(keys) == 0 {
		sb.WriteString("{}")
		return nil
	}
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteString(p.itemSep())
		}
		p.newline(sb, depth+1)
		p.writeString(sb, k)
		sb.WriteString(": ")
		if err := p.write(sb, at(k), depth+1); err != nil {
			return err
		}
	}
	p.newline(sb, depth)
	sb.WriteByte('}')
	return nil
}

func (p pyJSON) writeString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r < 0x20 || (p.ascii && r > 0x7e):
			writeUEscape(sb, r)
		case r == utf8.RuneError:
			sb.WriteString(`\ufffd`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
}

func writeUEscape(sb *strings.Builder, r rune) {
	if r > 0xFFFF {
		r -= 0x10000
		fmt.Fprintf(sb, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		return
	}
	fmt.Fprintf(sb, `\u%04x`, r)
}
