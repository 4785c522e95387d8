package main

import (
	"strconv"
	"strings"
)

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
// -flag=value form) to long names, and joins a flag and a negative number
// after it ("--seed -1" becomes "--seed=-1", "-n -1" becomes "-n-1"; kong
// would read -1 as a short flag). Arguments after "--" are left alone.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue := cutEquals(a)
		if long, ok := llamaShortFlags[name]; ok {
			a = long
			if hasValue {
				a += "=" + value
			}
		}
		if strings.HasPrefix(a, "-") && !hasValue && !isNegativeNumber(a) && i+1 < len(args) && isNegativeNumber(args[i+1]) {
			if strings.HasPrefix(a, "--") {
				a += "=" + args[i+1]
			} else {
				a += args[i+1] // kong takes -s-1, not -s=-1
			}
			i++
		}
		out = append(out, a)
	}
	return out
}

// isNegativeNumber reports whether a is a negative number ("-1", "-0.5",
// "-inf"), which llama.cpp's flags take as values (--seed -1,
// --repeat-last-n -1).
func isNegativeNumber(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err == nil
}

func cutEquals(a string) (name, value string, ok bool) {
	for i := 0; i < len(a); i++ {
		if a[i] == '=' {
			return a[:i], a[i+1:], true
		}
	}
	return a, "", false
}
