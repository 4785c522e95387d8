package main

import (
	"sort"
	"strconv"
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
	"-sys":   "--system-prompt",
	"-np":    "--parallel",
	"-md":    "--spec-draft-model",
	"-ctkd":  "--cache-type-k-draft",
	"-ctvd":  "--cache-type-v-draft",
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
