package chat

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2"
	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// A chat template comes from a model file, so it is hostile input: gonja
// has no limits of its own, and {% for i in range(10**9) %}, 'a' * 10**9 or
// a macro calling itself would take the server down. Each parsed template
// instance is rewritten so that the work of a render is charged to the
// instance's budget (budget.go) where it happens:
//
//   - a for loop charges its iterable's length before gonja materialises
//     it, and each iteration a step; each macro call, caller() body and
//     loop(…) recursion charges steps and counts its nesting (for bodies,
//     a guard after the body counts the return);
//   - every operator but and/or, every {{ output }}, every filter and
//     method call charges the sizes of its operands (before string or list
//     repetition, concatenation or padding allocate, the result size is
//     checked against what is left);
//   - loop and macro bodies charge their literal text per execution;
//   - range() builds a charged list (gonja's feeds a channel from a
//     goroutine that leaks when a loop breaks early);
//   - include, import, from and extends are not available (a template
//     that includes itself recursed without end).
//
// The guards are functions in the instance's context named guardPrefix…;
// a template that mentions that prefix is refused, so it cannot replace
// them.

const guardPrefix = "__waggle_"

// Guard names (with guardPrefix).
const (
	gStep  = guardPrefix + "step"  // (literal bytes)
	gRec   = guardPrefix + "rec"   // (loop, args…): a recursive loop's loop(…)
	gEnter = guardPrefix + "enter" // (literal bytes): a macro or caller() body starts
	gLeave = guardPrefix + "leave" // (): it ended
	gIter  = guardPrefix + "iter"  // (iterable)
	gOut   = guardPrefix + "out"   // (value)
	gBin   = guardPrefix + "bin"   // (operator index, left, right)
	gRecv  = guardPrefix + "recv"  // (method receiver)
	gL     = guardPrefix + "l"     // operands of a re-evaluated operator
	gR     = guardPrefix + "r"
)

// instance is one parsed template with its own budget, guards, filters and
// methods; one render runs on it at a time.
type instance struct {
	tpl *exec.Template
	b   budget
	ops []*nodes.BinOperator // the operators gBin re-evaluates, by index
}

// newInstance parses src into a guarded instance.
func newInstance(src string) (inst *instance, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("template parser panicked: %v", r)
		}
	}()
	inst = &instance{}
	loader, err := newMemoryLoader(src)
	if err != nil {
		return nil, err
	}
	tpl, err := exec.NewTemplate("/chat_template", hfConfig(), loader, inst.environment())
	if err != nil {
		return nil, err
	}
	rw := &rewriter{inst: inst, seen: map[uintptr]bool{}}
	rw.walk(reflect.ValueOf(tpl.Root()).Elem())
	inst.tpl = tpl
	return inst, nil
}

// controls are the statements templates may use: gonja's minus include,
// import, from and extends.
var controls = func() *exec.ControlStructureSet {
	m := map[string]parser.ControlStructureParser{}
	for _, name := range []string{"autoescape", "block", "filter", "for", "if", "macro", "raw", "set", "with", "do", "break", "continue", "trans", "call"} {
		if p, ok := controlStructures.All.Get(name); ok {
			m[name] = p
		}
	}
	return exec.NewControlStructureSet(m)
}()

// environment is gonja's default environment with the instance's guards,
// budgeted filters and methods, range, raise_exception and the tojson
// that chat templates expect.
func (inst *instance) environment() *exec.Environment {
	d := gonja.DefaultEnvironment
	ctx := d.Context.Inherit()
	ctx.Set("raise_exception", raiseException)
	ctx.Set("range", inst.rangeFn)
	ctx.Set("lipsum", func() string { return "" })
	ctx.Set(gStep, inst.step)
	ctx.Set(gEnter, inst.enter)
	ctx.Set(gRec, inst.rec)
	ctx.Set(gLeave, inst.leave)
	ctx.Set(gIter, inst.iter)
	ctx.Set(gOut, inst.out)
	ctx.Set(gBin, inst.bin)
	ctx.Set(gRecv, inst.recv)
	return &exec.Environment{
		Context:           ctx,
		Filters:           inst.filters(d.Filters),
		Tests:             d.Tests,
		ControlStructures: controls,
		Methods:           inst.methods(d.Methods),
	}
}

// step charges one iteration of a loop body: a step and its literal text.
func (inst *instance) step(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	if err := inst.b.charge(1, int64(va.Args[0].Integer())); err != nil {
		return fail(err)
	}
	return exec.AsValue("")
}

// rec calls a recursive loop's loop(…) (its first argument) with the rest,
// counting the nesting.
func (inst *instance) rec(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	var fn func(*exec.VarArgs) *exec.Value
	switch l := va.Args[0].Interface().(type) {
	case func(*exec.VarArgs) *exec.Value: // what gonja sets in a recursive loop
		fn = l
	case interface {
		Call(*exec.VarArgs) *exec.Value
	}:
		fn = l.Call
	default:
		return fail(errors.New("loop is not callable here: the loop is not recursive"))
	}
	if err := inst.b.charge(macroSteps, 0); err != nil {
		return fail(err)
	}
	if inst.b.nesting++; inst.b.nesting > maxDepth {
		return fail(inst.b.tooDeep())
	}
	defer func() { inst.b.nesting-- }()
	return fn(&exec.VarArgs{Args: va.Args[1:], KwArgs: va.KwArgs})
}

// enter charges a macro or caller() body and counts its nesting.
func (inst *instance) enter(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	err := inst.b.charge(macroSteps, int64(va.Args[0].Integer()))
	if inst.b.nesting++; err == nil && inst.b.nesting > maxDepth {
		err = inst.b.tooDeep()
	}
	if err != nil {
		return fail(err)
	}
	return exec.AsValue("")
}

// leave counts a macro or caller() body's end.
func (inst *instance) leave() string {
	inst.b.nesting--
	return ""
}

// iter charges a loop's iterations before gonja materialises them (one
// step and one element each; the items are not copied).
func (inst *instance) iter(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	v := va.Args[0]
	n := int64(v.Len())
	if err := inst.b.charge(n+1, n*elemBytes); err != nil {
		return fail(err)
	}
	return v
}

// out charges what an output expression renders.
func (inst *instance) out(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	if err := inst.b.chargeValues(va.Args[0]); err != nil {
		return fail(err)
	}
	return va.Args[0]
}

// recv charges a method's receiver, which gonja converts in full before
// the call.
func (inst *instance) recv(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	if err := inst.b.chargeValues(va.Args[0]); err != nil {
		return fail(err)
	}
	return va.Args[0]
}

// bin evaluates operator ops[i] on its operands with gonja's own rules,
// after charging them and checking that a repetition or concatenation
// fits what is left of the budget.
func (inst *instance) bin(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	op, l, r := inst.ops[va.Args[0].Integer()], va.Args[1], va.Args[2]
	if err := inst.b.chargeValues(l, r); err != nil {
		return fail(err)
	}
	var grow int64
	switch op.Token.Type {
	case tokens.Multiply:
		if l.IsString() && r.IsInteger() && r.Integer() > 0 {
			grow = int64(l.Len()) * int64(r.Integer())
		}
	case tokens.Addition, tokens.Tilde:
		grow = size(l, inst.b.bytes) + size(r, inst.b.bytes)
	}
	if err := inst.b.charge(0, grow); err != nil {
		return fail(err)
	}
	sub := &exec.Evaluator{Config: e.Config, Loader: e.Loader, Environment: &exec.Environment{
		Context: exec.NewContext(map[string]any{gL: l, gR: r}), Filters: e.Environment.Filters,
		Tests: e.Environment.Tests, ControlStructures: e.Environment.ControlStructures, Methods: e.Environment.Methods,
	}}
	return sub.Eval(&nodes.BinaryExpression{Left: name(gL), Right: name(gR), Operator: op})
}

// rangeFn is Python's range as a list, charged per element.
func (inst *instance) rangeFn(va *exec.VarArgs) *exec.Value {
	var a [3]int
	n := len(va.Args)
	if n < 1 || n > 3 {
		return fail(errors.New("range expects [start, ]stop[, step]"))
	}
	for i, v := range va.Args {
		if !v.IsInteger() {
			return fail(errors.New("range expects integers"))
		}
		a[i] = v.Integer()
	}
	start, stop, step := 0, a[0], 1
	if n > 1 {
		start, stop = a[0], a[1]
	}
	if n == 3 {
		step = a[2]
	}
	if step == 0 {
		return fail(errors.New("range step cannot be 0"))
	}
	count := int64(0)
	if step > 0 && stop > start {
		count = (int64(stop) - int64(start) + int64(step) - 1) / int64(step)
	} else if step < 0 && stop < start {
		count = (int64(start) - int64(stop) - int64(step) - 1) / int64(-step)
	}
	if err := inst.b.charge(count, count*elemBytes); err != nil {
		return fail(err)
	}
	out := make([]int, count)
	for i := range out {
		out[i] = start + i*step
	}
	return exec.AsValue(out)
}

func name(s string) *nodes.Name { return &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: s}} }

// call is an expression calling guard fn with args.
func call(fn string, args ...nodes.Expression) *nodes.Call {
	return &nodes.Call{Location: &tokens.Token{Val: fn}, Func: name(fn), Args: args, Kwargs: map[string]nodes.Expression{}}
}

// rewriter walks a parsed template and inserts the guards.
type rewriter struct {
	inst *instance
	seen map[uintptr]bool // nodes already rewritten (macros are reachable twice)
	text []*int64         // literal-text counters of the bodies being walked
}

// walk rewrites what v (an addressable value of the AST) holds.
func (rw *rewriter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e, ok := v.Interface().(nodes.Expression); ok && v.Type() == exprType {
			settable(v).Set(reflect.ValueOf(rw.expr(e)))
			return
		}
		inner := reflect.New(v.Elem().Type()).Elem()
		inner.Set(v.Elem())
		rw.walk(inner)
		settable(v).Set(inner)
	case reflect.Pointer:
		if v.IsNil() || v.Type() == tokenPtr {
			return
		}
		p := v.Pointer()
		if rw.seen[p] {
			return
		}
		rw.seen[p] = true
		rw.node(v)
	case reflect.Slice:
		for i := range v.Len() {
			rw.walk(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			rw.walk(e)
			settable(v).SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			rw.walk(settable(v.Field(i)))
		}
	}
}

var (
	exprType = reflect.TypeFor[nodes.Expression]()
	tokenPtr = reflect.TypeFor[*tokens.Token]()
)

// node rewrites the struct p points to, with the additions its type needs.
func (rw *rewriter) node(p reflect.Value) {
	switch n := p.Interface().(type) {
	case *nodes.Data:
		if len(rw.text) > 0 && n.Data != nil {
			*rw.text[len(rw.text)-1] += int64(len(n.Data.Val))
		}
		return
	case *controlStructures.ForControlStructure:
		n.ObjectEvaluator = call(gIter, rw.expr(n.ObjectEvaluator))
		n.IfCondition = rw.expr(n.IfCondition)
		rw.body(n.BodyWrapper, func(text int) nodes.Expression { return call(gStep, integer(text)) }, nil)
		rw.walk(reflect.ValueOf(n.EmptyWrapper))
		return
	case *nodes.Macro:
		rw.walk(reflect.ValueOf(&n.Kwargs).Elem())
		rw.body(n.Wrapper, func(text int) nodes.Expression { return call(gEnter, integer(text)) }, call(gLeave))
		return
	case *controlStructures.CallControlStructure:
		n.Call = rw.expr(n.Call).(*nodes.Call)
		rw.body(n.Body, func(text int) nodes.Expression { return call(gEnter, integer(text)) }, call(gLeave))
		return
	case *nodes.Output:
		n.Expression = call(gOut, rw.expr(n.Expression))
		n.Condition = rw.expr(n.Condition)
		if n.Alternative != nil {
			n.Alternative = call(gOut, rw.expr(n.Alternative))
		}
		return
	}
	if p.Elem().Kind() == reflect.Struct {
		rw.walk(p.Elem())
	}
}

// body walks a loop or macro body and puts the guard head(text) in front
// of it, text being the literal text the body holds (nested bodies charge
// their own), and tail, if any, after it.
func (rw *rewriter) body(w *nodes.Wrapper, head func(text int) nodes.Expression, tail nodes.Expression) {
	if w == nil {
		return
	}
	var text int64
	rw.text = append(rw.text, &text)
	rw.seen[reflect.ValueOf(w).Pointer()] = true
	rw.walk(reflect.ValueOf(&w.Nodes).Elem())
	rw.text = rw.text[:len(rw.text)-1]
	w.Nodes = append([]nodes.Node{output(head(int(min(text, 1<<30))))}, w.Nodes...)
	if tail != nil {
		w.Nodes = append(w.Nodes, output(tail))
	}
}

// output is {{ e }}.
func output(e nodes.Expression) *nodes.Output {
	return &nodes.Output{Start: &tokens.Token{}, End: &tokens.Token{}, Expression: e}
}

func integer(v int) *nodes.Integer { return &nodes.Integer{Location: &tokens.Token{}, Val: v} }

// expr rewrites an expression tree and returns its guarded form.
func (rw *rewriter) expr(e nodes.Expression) nodes.Expression {
	if e == nil {
		return nil
	}
	switch n := e.(type) {
	case *nodes.BinaryExpression:
		n.Left, n.Right = rw.expr(n.Left), rw.expr(n.Right)
		if t := n.Operator.Token.Type; t == tokens.And || t == tokens.Or {
			return n
		}
		rw.inst.ops = append(rw.inst.ops, n.Operator)
		return call(gBin, integer(len(rw.inst.ops)-1), n.Left, n.Right)
	case *nodes.Call:
		if rw.seen[reflect.ValueOf(n).Pointer()] {
			return n
		}
		rw.seen[reflect.ValueOf(n).Pointer()] = true
		if fn, ok := n.Func.(*nodes.Name); ok && fn.Name.Val == "loop" {
			n.Func, n.Args = name(gRec), append([]nodes.Expression{name("loop")}, n.Args...)
		} else if ga, ok := n.Func.(*nodes.GetAttribute); ok && n.Parent != nil && n.Parent == ga.Node {
			recv := rw.expr(ga.Node.(nodes.Expression))
			ga.Node = call(gRecv, recv)
			if _, isName := n.Parent.(*nodes.Name); !isName {
				n.Parent = recv // evaluated again by gonja: guarded too
			}
		} else {
			rw.walk(reflect.ValueOf(&n.Func).Elem())
		}
		rw.walk(reflect.ValueOf(&n.Args).Elem())
		rw.walk(reflect.ValueOf(&n.Kwargs).Elem())
		return n
	}
	p := reflect.ValueOf(e)
	if p.Kind() == reflect.Pointer && !p.IsNil() && !rw.seen[p.Pointer()] {
		rw.seen[p.Pointer()] = true
		rw.node(p)
	}
	return e
}

// settable returns a field of an addressable struct as a settable value.
// gonja keeps some statements' expressions in unexported fields ({% set %},
// {% with %}, {% filter %}); the rewrite must reach them too.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}
