package chat

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Filters and methods run through budget wrappers: each call charges a
// step and the sizes of its input and arguments, then what its result can
// grow to (checked before gonja allocates it: padding widths, repeated
// replacements, format widths), then its result. The lists name every
// filter and method of the gonja version in go.mod; one missing from them
// is unavailable to templates (a clear error, never an unbudgeted call).

var filterNames = []string{
	"abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape",
	"filesizeformat", "first", "float", "forceescape", "format", "groupby", "indent", "int", "items",
	"join", "last", "length", "list", "lower", "map", "max", "min", "pprint", "random", "reject",
	"rejectattr", "replace", "reverse", "round", "safe", "select", "selectattr", "slice", "sort",
	"string", "striptags", "sum", "title", "tojson", "trim", "truncate", "unique", "upper",
	"urlencode", "urlize", "wordcount",
}

// shallowFilters read no more of their input than its length or one
// element: they are charged a step, not their input's size (a template
// calls messages|length once per message).
var shallowFilters = map[string]bool{
	"length": true, "count": true, "first": true, "last": true, "default": true, "d": true,
	"attr": true, "safe": true, "random": true, "abs": true, "int": true, "float": true, "round": true,
}

// filterGrowth is how large a filter's result may get beyond its input;
// limit is what is left of the budget (a bound for walks).
var filterGrowth = map[string]func(in *exec.Value, va *exec.VarArgs, limit int64) int64{
	"center":  func(_ *exec.Value, va *exec.VarArgs, _ int64) int64 { return intArg(va, 0, "width") },
	"indent":  indentGrowth,
	"format":  func(in *exec.Value, _ *exec.VarArgs, _ int64) int64 { return formatWidths(in.String()) },
	"replace": func(in *exec.Value, va *exec.VarArgs, _ int64) int64 { return replaceGrowth(in.String(), va) },
	"batch":   func(_ *exec.Value, va *exec.VarArgs, _ int64) int64 { return intArg(va, 0, "linecount") * elemBytes },
	"slice":   func(_ *exec.Value, va *exec.VarArgs, _ int64) int64 { return intArg(va, 0, "slices") * elemBytes },
	"join": func(in *exec.Value, va *exec.VarArgs, _ int64) int64 {
		return int64(in.Len()) * int64(len(strArg(va, 0, "d")))
	},
	"list": func(in *exec.Value, _ *exec.VarArgs, _ int64) int64 { return int64(in.Len()) * elemBytes },
	"tojson": func(in *exec.Value, va *exec.VarArgs, limit int64) int64 {
		return size(in, limit) * (min(intArg(va, 0, "indent"), limit) + 2)
	},
	"escape":      escapeGrowth,
	"e":           escapeGrowth,
	"forceescape": escapeGrowth,
	"urlencode":   func(in *exec.Value, _ *exec.VarArgs, _ int64) int64 { return 3 * int64(len(in.String())) },
	"urlize":      func(in *exec.Value, _ *exec.VarArgs, _ int64) int64 { return 4 * int64(len(in.String())) },
}

// escapeGrowth bounds HTML escaping: "&quot;" for '"'.
func escapeGrowth(in *exec.Value, _ *exec.VarArgs, _ int64) int64 { return 5 * int64(len(in.String())) }

// filters is base with every listed filter budgeted and Python's tojson.
func (inst *instance) filters(base *exec.FilterSet) *exec.FilterSet {
	fs := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(base)
	_ = fs.Replace("tojson", filterToJSON)
	budgeted := exec.NewFilterSet(map[string]exec.FilterFunction{})
	for _, name := range filterNames {
		orig, ok := fs.Get(name)
		if !ok {
			continue
		}
		grow, shallow := filterGrowth[name], shallowFilters[name]
		_ = budgeted.Register(name, func(e *exec.Evaluator, in *exec.Value, va *exec.VarArgs) *exec.Value {
			charged := args(va)
			if !shallow {
				charged = append(charged, in)
			}
			if err := inst.b.chargeValues(charged...); err != nil {
				return fail(err)
			}
			if grow != nil {
				if err := inst.b.charge(0, max(grow(in, va, inst.b.bytes), 0)); err != nil {
					return fail(err)
				}
			}
			res := orig(e, in, va)
			if err := inst.b.charge(0, size(res, inst.b.bytes)); err != nil {
				return fail(err)
			}
			return res
		})
	}
	return budgeted
}

// methodGrowth is how large a string method's result may get.
var methodGrowth = map[string]func(self string, va *exec.VarArgs) int64{
	"center": func(_ string, va *exec.VarArgs) int64 { return intArg(va, 0, "width") },
	"ljust":  func(_ string, va *exec.VarArgs) int64 { return intArg(va, 0, "width") },
	"rjust":  func(_ string, va *exec.VarArgs) int64 { return intArg(va, 0, "width") },
	"zfill":  func(_ string, va *exec.VarArgs) int64 { return intArg(va, 0, "width") },
	"expandtabs": func(s string, va *exec.VarArgs) int64 {
		return int64(strings.Count(s, "\t")) * max(intArg(va, 0, "tabsize"), 8)
	},
	"replace":      replaceGrowth,
	"format":       func(s string, _ *exec.VarArgs) int64 { return formatWidths(s) },
	"format_map":   func(s string, _ *exec.VarArgs) int64 { return formatWidths(s) },
	"join":         func(s string, va *exec.VarArgs) int64 { return int64(len(s)) * int64(argLen(va, 0)) },
	"split":        func(s string, _ *exec.VarArgs) int64 { return int64(len(s)+1) * elemBytes },
	"rsplit":       func(s string, _ *exec.VarArgs) int64 { return int64(len(s)+1) * elemBytes },
	"splitlines":   func(s string, _ *exec.VarArgs) int64 { return int64(len(s)+1) * elemBytes },
	"encode":       func(s string, _ *exec.VarArgs) int64 { return int64(len(s)) * elemBytes },
	"capitalize":   nil,
	"partition":    nil,
	"rpartition":   nil,
	"casefold":     nil,
	"capwords":     nil,
	"swapcase":     nil,
	"title":        nil,
	"upper":        nil,
	"lower":        nil,
	"strip":        nil,
	"lstrip":       nil,
	"rstrip":       nil,
	"count":        nil,
	"endswith":     nil,
	"startswith":   nil,
	"find":         nil,
	"rfind":        nil,
	"isalnum":      nil,
	"isalpha":      nil,
	"isascii":      nil,
	"isdecimal":    nil,
	"isdigit":      nil,
	"islower":      nil,
	"isnumeric":    nil,
	"isprintable":  nil,
	"isspace":      nil,
	"istitle":      nil,
	"isupper":      nil,
	"removeprefix": nil,
	"removesuffix": nil,
}

// methods is base with every listed method budgeted.
func (inst *instance) methods(base exec.Methods) exec.Methods {
	return exec.Methods{
		Str:   budgetMethods(inst, base.Str, methodGrowth),
		List:  budgetMethods(inst, base.List, map[string]func([]any, *exec.VarArgs) int64{"append": nil, "reverse": nil, "copy": nil}),
		Dict:  budgetMethods(inst, base.Dict, map[string]func(map[string]any, *exec.VarArgs) int64{"keys": nil, "values": nil, "items": nil, "get": nil, "pop": nil, "setdefault": nil, "update": nil, "copy": nil, "clear": nil}),
		Int:   budgetMethods(inst, base.Int, map[string]func(int, *exec.VarArgs) int64{"is_integer": nil, "bit_length": nil, "bit_count": nil, "as_integer_ratio": nil}),
		Float: budgetMethods(inst, base.Float, map[string]func(float64, *exec.VarArgs) int64{"is_integer": nil, "as_integer_ratio": nil, "hex": nil}),
		Bool:  budgetMethods(inst, base.Bool, map[string]func(bool, *exec.VarArgs) int64{"string": nil, "int": nil, "bit_length": nil, "bit_count": nil, "as_integer_ratio": nil}),
	}
}

func budgetMethods[I any](inst *instance, base *exec.MethodSet[I], growth map[string]func(I, *exec.VarArgs) int64) *exec.MethodSet[I] {
	m := map[string]exec.Method[I]{}
	for name, grow := range growth {
		orig, ok := base.Get(name)
		if !ok {
			continue
		}
		m[name] = func(self I, selfValue *exec.Value, va *exec.VarArgs) (any, error) {
			if err := inst.b.chargeValues(args(va)...); err != nil {
				return nil, err
			}
			if grow != nil {
				if err := inst.b.charge(0, max(grow(self, va), 0)); err != nil {
					return nil, err
				}
			}
			res, err := orig(self, selfValue, va)
			if err == nil {
				err = inst.b.charge(0, size(res, inst.b.bytes))
			}
			return res, err
		}
	}
	return exec.NewMethodSet(m)
}

// args lists a call's positional and keyword arguments.
func args(va *exec.VarArgs) []*exec.Value {
	out := append([]*exec.Value(nil), va.Args...)
	for _, v := range va.KwArgs {
		out = append(out, v)
	}
	return out
}

// arg returns positional argument i or keyword argument kw.
func arg(va *exec.VarArgs, i int, kw string) *exec.Value {
	if i < len(va.Args) {
		return va.Args[i]
	}
	return va.KwArgs[kw]
}

func intArg(va *exec.VarArgs, i int, kw string) int64 {
	if v := arg(va, i, kw); v != nil && v.IsInteger() {
		return int64(v.Integer())
	}
	return 0
}

func strArg(va *exec.VarArgs, i int, kw string) string {
	if v := arg(va, i, kw); v != nil && v.IsString() {
		return v.String()
	}
	return ""
}

func argLen(va *exec.VarArgs, i int) int {
	if i < len(va.Args) && va.Args[i].CanSlice() {
		return va.Args[i].Len()
	}
	return 0
}

// indentGrowth bounds indent(width, first, blank): the indent, a width or
// a string, on every line.
func indentGrowth(in *exec.Value, va *exec.VarArgs, _ int64) int64 {
	w := intArg(va, 0, "width")
	if s := strArg(va, 0, "width"); s != "" {
		w = int64(len(s))
	}
	return w * int64(strings.Count(in.String(), "\n")+1)
}

// replaceGrowth bounds s.replace(old, new): every possible match replaced.
func replaceGrowth(s string, va *exec.VarArgs) int64 {
	old, repl := strArg(va, 0, "old"), strArg(va, 1, "new")
	matches := int64(len(s) + 1)
	if old != "" {
		matches = int64(strings.Count(s, old))
	}
	return matches * int64(len(repl))
}

// formatWidths sums the numbers in a format string: a bound on what its
// field widths and precisions can pad to.
func formatWidths(s string) int64 {
	var total, n int64
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			n = min(n*10+int64(s[i]-'0'), 1<<40)
			continue
		}
		total, n = min(total+n, 1<<40), 0
	}
	return total
}
