package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
)

// maxJSONDepth bounds nesting in tool schemas and tool calls handed to a
// template, so a hostile request cannot recurse the encoder into the ground.
const maxJSONDepth = 64

// keyOrder maps a decoded JSON object (by its map pointer) to its keys in
// source order, for the lifetime of one Render. Go maps forget insertion
// order; Python's json.dumps, which templates expect from tojson, keeps it.
var keyOrder sync.Map // uintptr -> []string

// keyOrders tracks the entries one Render added, so they are dropped after.
type keyOrders struct{ ptrs []uintptr }

func newKeyOrders() *keyOrders { return &keyOrders{} }

func mapPtr(m map[string]any) uintptr { return uintptr(reflect.ValueOf(m).UnsafePointer()) }

func (o *keyOrders) remember(m map[string]any, keys []string) {
	p := mapPtr(m)
	keyOrder.Store(p, keys)
	o.ptrs = append(o.ptrs, p)
}

func (o *keyOrders) release() {
	for _, p := range o.ptrs {
		keyOrder.Delete(p)
	}
	o.ptrs = nil
}

// orderedKeys returns m's keys in source order when known.
func orderedKeys(m map[string]any) ([]string, bool) {
	v, ok := keyOrder.Load(mapPtr(m))
	if !ok {
		return nil, false
	}
	keys := v.([]string)
	if len(keys) != len(m) {
		return nil, false // the template changed the map
	}
	return keys, true
}

// decode parses raw JSON into maps, slices, strings, json.Number, bools and
// nil, remembering each object's key order.
func (o *keyOrders) decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := o.decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

func (o *keyOrders) decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return o.decodeObject(dec, depth)
		}
		if t == '[' {
			return o.decodeArray(dec, depth)
		}
		return nil, fmt.Errorf("unexpected %q", t)
	default:
		return t, nil
	}
}

func (o *keyOrders) decodeObject(dec *json.Decoder, depth int) (any, error) {
	m := map[string]any{}
	var keys []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		v, err := o.decodeValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	o.remember(m, keys)
	return m, nil
}

func (o *keyOrders) decodeArray(dec *json.Decoder, depth int) (any, error) {
	l := []any{}
	for dec.More() {
		v, err := o.decodeValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return l, nil
}
