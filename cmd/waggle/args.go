package main

// llamaShortFlags maps llama.cpp's multi-letter single-dash flags, which
// kong (like most Go flag parsers) would read as a one-letter flag followed
// by a value, to their long names, so `waggle run -ctk f32` works as it does
// in llama.cpp.
var llamaShortFlags = map[string]string{
	"-ctk": "--cache-type-k",
	"-ctv": "--cache-type-v",
	"-ngl": "--n-gpu-layers",
	"-ub":  "--ubatch-size",
	"-sys": "--system-prompt",
	"-np":  "--parallel",
	"-md":  "--spec-draft-model",
	"-fa":  "--flash-attn",
	"-cb":  "--cont-batching",
	"-sm":  "--split-mode",
	"-kvu": "--kv-unified",
	"-lcs": "--lookup-cache-static",
	"-lcd": "--lookup-cache-dynamic",
}

// normalizeArgs rewrites llama.cpp's multi-letter short flags (also in the
// -flag=value form) to long names. Arguments after "--" are left alone.
func normalizeArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		name, value, hasValue := cutEquals(a)
		if long, ok := llamaShortFlags[name]; ok {
			out[i] = long
			if hasValue {
				out[i] += "=" + value
			}
		}
	}
	return out
}

func cutEquals(a string) (name, value string, ok bool) {
	for i := 0; i < len(a); i++ {
		if a[i] == '=' {
			return a[:i], a[i+1:], true
		}
	}
	return a, "", false
}
