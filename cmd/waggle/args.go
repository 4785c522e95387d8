package main

import (
	"sort"
	"strings"

	"github.com/alecthomas/kong"
)

// llamaShortFlags maps llama.cpp's multi-letter single-dash flags, which
// kong (like most Go flag parsers) would read as a one-letter flag followed
// by a value, to their long names, so `waggle run -ctk f32` works as it does
// in llama.cpp.
var llamaShortFlags = map[string]string{
	"-ctk":   "--cache-type-k",
	"-ctv":   "--cache-type-v",
	"-ngl":   "--n-gpu-layers",
	"-ub":    "--ubatch-size",
	"-np":    "--parallel",
	"-md":    "--spec-draft-model",
	"-fa":    "--flash-attn",
	"-cb":    "--cont-batching",
	"-nocb":  "--no-cont-batching",
	"-sm":    "--split-mode",
	"-kvu":   "--kv-unified",
	"-lcs":   "--lookup-cache-static",
	"-lcd":   "--lookup-cache-dynamic",
	"-to":    "--timeout",
	"-cram":  "--cache-ram",
	"-cpent": "--checkpoint-every-n-tokens",
	"-dev":   "--device",
	"-ts":    "--tensor-split",
	"-mg":    "--main-gpu",
	"-kvo":   "--kv-offload",
	"-nkvo":  "--no-kv-offload",
	"-ot":    "--override-tensor",
	"-cmoe":  "--cpu-moe",
	"-ncmoe": "--n-cpu-moe",
	"-dio":   "--direct-io",
	"-ndio":  "--no-direct-io",
	"-tb":    "--threads-batch",
	"-lv":    "--verbosity",
	"-sps":   "--slot-prompt-similarity",
	"-Cr":    "--cpu-range",
	"-Cb":    "--cpu-mask-batch",
	"-Crb":   "--cpu-range-batch",
}

// helpGroups are llama-server's --help sections, in its order.
var helpGroups = []kong.Group{
	{Key: "common", Title: "Common params:"},
	{Key: "sampling", Title: "Sampling params (defaults for requests):"},
	{Key: "speculative", Title: "Speculative params:"},
	{Key: "server", Title: "Server params:"},
}

// helpWithShortFlags is kong's help text for a flag with the llama.cpp
// short forms that normalizeArgs maps onto it put in front ("-np: ...").
func helpWithShortFlags(v *kong.Value) string {
	help := kong.DefaultHelpValueFormatter(v)
	if v.Flag == nil {
		return help
	}
	var shorts []string
	for short, long := range llamaShortFlags {
		if long == "--"+v.Name || (v.Flag.Negated || v.Tag.Negatable != "") && long == "--no-"+v.Name {
			shorts = append(shorts, short)
		}
	}
	if len(shorts) == 0 {
		return help
	}
	sort.Strings(shorts)
	return "(" + strings.Join(shorts, ", ") + ") " + help
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
