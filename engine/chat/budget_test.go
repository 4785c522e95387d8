package chat

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// hostileTemplates each try to take a server down through one path gonja
// leaves open: time, memory or stack.
var hostileTemplates = map[string]string{
	"range loop":        `{% for i in range(30000000) %}{% endfor %}`,
	"nested loops":      `{% set xs = range(3000) %}{% for i in xs %}{% for j in xs %}{% endfor %}{% endfor %}`,
	"string repeat":     `{{ 'a' * 100000000 }}`,
	"repeat in set":     `{% set x = 'a' * 100000000 %}{{ x|length }}`,
	"repeat in with":    `{% with x = 'ab' * 100000000 %}{{ x|length }}{% endwith %}`,
	"repeat in filter":  `{% filter upper %}{{ 'a' * 100000000 }}{% endfilter %}`,
	"doubling":          `{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}`,
	"list doubling":     `{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}`,
	"tilde doubling":    `{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}`,
	"self append":       `{% set ns = namespace(l=[]) %}{% for i in range(60) %}{% set ns.l = ns.l + [ns.l] %}{% endfor %}{{ ns.l }}`,
	"recursive macro":   `{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}`,
	"branching macro":   `{% macro f(n) %}{% if n > 0 %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(40) }}`,
	"recursive loop":    `{% set l = [[]] %}{% for x in l recursive %}{{ loop(l) }}{% endfor %}`,
	"self include":      `{% include "/chat_template" %}`,
	"self import":       `{% import "/chat_template" as t %}`,
	"center method":     `{{ 'a'.center(1000000000) }}`,
	"ljust method":      `{{ 'a'.ljust(1000000000) }}`,
	"zfill method":      `{{ '1'.zfill(1000000000) }}`,
	"center filter":     `{{ 'a'|center(1000000000) }}`,
	"indent filter":     `{{ ('a\n' * 1000)|indent(1000000) }}`,
	"format width":      `{{ '{:>1000000000}'.format(1) }}`,
	"format filter":     `{{ '%1000000000d'|format(1) }}`,
	"replace empty":     `{% set s = 'a' * 10000 %}{{ s.replace('', s) }}`,
	"replace filter":    `{% set s = 'a' * 10000 %}{{ s|replace('a', s) }}`,
	"caller loop":       `{% macro m() %}{% for i in range(1000000) %}{{ caller() }}{% endfor %}{% endmacro %}{% call m() %}` + strings.Repeat("x", 1000) + `{% endcall %}`,
	"macro text":        `{% macro m() %}` + strings.Repeat("y", 10000) + `{% endmacro %}{% for i in range(100000) %}{% set x = m() %}{% endfor %}`,
	"list of string":    `{% set s = 'a' * 1000000 %}{% for i in range(100) %}{% set l = s|list %}{% endfor %}`,
	"batch padding":     `{{ [1]|batch(1000000000, 0)|list }}`,
	"join bomb":         `{% set l = range(100000)|list %}{{ l|join('x' * 10000) }}`,
	"tojson indent":     `{{ range(1000)|list|tojson(indent=1000000) }}`,
	"many outputs":      `{% set s = 'a' * 100000 %}{% for i in range(1000000) %}{{ s }}{% endfor %}`,
	"big output in set": `{% set s = 'a' * 100000 %}{% set x %}{% for i in range(1000000) %}{{ s }}{% endfor %}{% endset %}`,
	"split bomb":        `{% set s = ' ' * 5000000 %}{% for i in range(100) %}{% set x = s.split(' ') %}{% endfor %}`,
	"compare bomb":      `{% set ns = namespace(l=[]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l == ns.l }}`,
}

// TestHostileTemplatesFailFast: each hostile template ends with an error
// (ErrBudget where it runs) within a few seconds and without allocating
// gigabytes.
func TestHostileTemplatesFailFast(t *testing.T) {
	defer func(n, b int64) { stepLimit, byteBase = n, b }(stepLimit, byteBase)
	stepLimit, byteBase = 1<<16, 8<<20 // the guards, not the size of the budget, are under test
	for name, src := range hostileTemplates {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			tpl, err := Parse(src)
			if err == nil {
				_, err = tpl.Render(Inputs{Messages: convo})
			}
			d := time.Since(t0)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("rendered without an error")
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<30 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
			if d > time.Minute { // minutes without the budget; well under a second with it, idle
				t.Errorf("took %v", d)
			}
			t.Logf("%v in %v: %.120s", errors.Is(err, ErrBudget), d.Round(time.Millisecond), err)
		})
	}
}

// TestDryRunRefusesBombs: a template that blows its budget on any
// conversation fails its load-time dry run; one that merely raises on a
// system message passes it.
func TestDryRunRefusesBombs(t *testing.T) {
	bomb, err := Parse(`{% for m in messages %}{{ 'x' * 100000000 }}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := bomb.DryRun("<s>", "</s>"); !errors.Is(err, ErrBudget) {
		t.Fatalf("bomb: %v", err)
	}
	strict, err := Parse(`{% if messages[0].role == 'system' %}{{ raise_exception('no system role') }}{% endif %}ok`)
	if err != nil {
		t.Fatal(err)
	}
	if err := strict.DryRun("<s>", "</s>"); err != nil {
		t.Fatalf("a template that raises is not a bomb: %v", err)
	}
}

// sandboxCases exercise the constructs the sandbox rewrites; each must
// render exactly as gonja renders it without the sandbox.
var sandboxCases = []string{
	`{% set x = 'ab' * 3 %}{{ x }}|{{ x + 'c' }}|{{ x ~ 1 }}|{{ 1 + 2 * 3 - 4 / 2 }}|{{ 7 // 2 }} {{ 7 % 3 }} {{ 2 ** 8 }}`,
	`{% with a = [1, 2] + [3] %}{{ a }}{{ a|length }}{% endwith %}{% filter upper %}x{{ 'y' * 2 }}{% endfilter %}`,
	`{% set ns = namespace(l=[], s='') %}{% for m in messages %}{% set ns.s = ns.s + m.role[:1] %}{% set _ = ns.l.append(loop.index) %}{% endfor %}{{ ns.s }}{{ ns.l }}`,
	`{% macro r(m, d=0) %}[{{ m.role }}{% if d < 2 %}{{ r(m, d + 1) }}{% endif %}]{% endmacro %}{% for m in messages %}{{ r(m) }}{% endfor %}`,
	`{% macro box() %}<{{ caller() }}>{% endmacro %}{% call box() %}{{ messages|length }}{% endcall %}`,
	`{% for x in [[1, [2]], [3]] recursive %}{% if x is iterable %}({{ loop(x) }}){% else %}{{ x }}{% endif %}{% endfor %}`,
	`{% for i in range(2, 11, 3) %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %} {{ range(3)|list }} {{ range(5, 0, -2)|list }}`,
	`{{ 'a,b,,c'.split(',') }} {{ 'x'.center(5, '*') }}|{{ 'ab'.replace('b', 'cd', -1) }} {{ '{} {}'.format(1, 'z') }} {{ '%05d'|format(42) }}`,
	`{{ {'b': 1, 'a': [1, 2]}|tojson }} {{ messages[0]|dictsort }} {{ [3, 1, 2]|sort|join('-') }} {{ 'a\nb'|indent(2, true) }}`,
	`{% for k, v in {'x': 1, 'y': 2}.items() %}{{ k }}={{ v }};{% endfor %}{{ (messages|map(attribute='role')|list)[1:] }}`,
	`{{ 'yes' if messages|length > 1 else 'no' }} {{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ [1] == [1] }} {{ none is none }}`,
	`{%- for m in messages %}{{ m.content|trim|truncate(3) }}{{ m.content|wordcount }}{% endfor -%}{{ messages|selectattr('role', 'equalto', 'user')|list|length }}`,
}

func TestSandboxMatchesGonja(t *testing.T) {
	in := Inputs{Messages: convo, AddGenerationPrompt: true}
	for _, src := range sandboxCases {
		want, werr := renderPlain(t, src, in)
		tpl, err := Parse(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, gerr := tpl.Render(in)
		if werr != nil || gerr != nil || got != want {
			t.Errorf("%s\nsandbox %q (%v)\ngonja   %q (%v)", src, got, gerr, want, werr)
		}
	}
}

// renderPlain renders src with gonja's default environment, as Parse did
// before the sandbox: the reference for TestSandboxMatchesGonja.
func renderPlain(t *testing.T, src string, in Inputs) (string, error) {
	t.Helper()
	d := gonja.DefaultEnvironment
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(d.Filters)
	_ = filters.Replace("tojson", filterToJSON)
	ctx := d.Context.Inherit()
	ctx.Set("raise_exception", raiseException)
	env := &exec.Environment{Context: ctx, Filters: filters, Tests: d.Tests, ControlStructures: d.ControlStructures, Methods: d.Methods}
	loader, err := loaders.NewMemoryLoader(map[string]string{"/chat_template": src})
	if err != nil {
		return "", err
	}
	tpl, err := exec.NewTemplate("/chat_template", hfConfig(), loader, env)
	if err != nil {
		return "", err
	}
	orders := newKeyOrders()
	defer orders.release()
	vars, err := in.variables(orders)
	if err != nil {
		return "", err
	}
	return tpl.ExecuteToString(exec.NewContext(vars))
}

// FuzzTemplate parses and renders arbitrary templates over a small
// conversation: each must render or fail with an error, never crash the
// process (a stack overflow or an out-of-memory is fatal, not a panic)
// or run past its budget.
func FuzzTemplate(f *testing.F) {
	for _, name := range BuiltinNames() {
		src, _ := Builtin(name)
		f.Add(src, "hi")
	}
	for _, src := range sandboxCases {
		f.Add(src, "x")
	}
	for _, src := range hostileTemplates {
		f.Add(src, "")
	}
	f.Cleanup(func(n, b int64) func() { return func() { stepLimit, byteBase = n, b } }(stepLimit, byteBase))
	stepLimit, byteBase = 1<<16, 8<<20 // keeps each input fast; the guards are what is fuzzed
	f.Fuzz(func(t *testing.T, src, content string) {
		tpl, err := Parse(src)
		if err != nil {
			return
		}
		t0 := time.Now()
		_, _ = tpl.Render(Inputs{Messages: []Message{{Role: "user", Content: content}}, AddGenerationPrompt: true,
			Tools: json.RawMessage(`[{"type":"function","function":{"name":"f"}}]`)})
		if d := time.Since(t0); d > 2*time.Minute { // a hang, not a slow machine
			t.Fatalf("render took %v", d)
		}
	})
}
