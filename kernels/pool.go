package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"
)

// Task is one parallel operation: Pool.Do calls Run once on every worker,
// with worker in [0, nWorkers), and returns when all calls have returned.
// Each Run decides from (worker, nWorkers) or from a shared atomic counter
// which part of the work it does. A Task is passed as an interface holding
// a pointer to a long-lived struct, so a dispatch allocates nothing.
type Task interface {
	Run(worker, nWorkers int)
}

// Pool is a fixed set of worker goroutines that run one Task at a time. The
// goroutine calling Do is worker 0; the pool owns workers 1..Threads()-1.
//
// Between tasks a worker spins on an atomic generation counter for about
// spinBudget (checking the clock every spinChecks loads and calling
// runtime.Gosched in between, so it never starves other goroutines when
// threads outnumber GOMAXPROCS), then parks on a one-slot channel until the
// next Do wakes it. A forward pass dispatches every few microseconds, so
// workers stay spinning through it and park between requests. The caller
// waits for the workers' completion the same way.
//
// Do is safe for concurrent use (calls are serialised); a Task must not call
// Do on its own pool (that deadlocks). A panic inside a Task is fatal to the
// pool: kernels check their arguments before they dispatch.
type Pool struct {
	n  int
	mu sync.Mutex // serialises Do

	_       cpu.CacheLinePad
	gen     atomic.Uint64 // bumped once per Do; workers wait for a change
	_       cpu.CacheLinePad
	pending atomic.Int32 // workers of the current Do that have not finished
	_       cpu.CacheLinePad

	task    Task // the current task; written before gen is bumped
	quit    bool // set by Close before its final gen bump
	closed  bool
	done    parker   // the caller waiting for pending == 0
	workers []parker // workers 1..n-1
	exited  sync.WaitGroup

	// Slots for the package's own tasks (MatMul, QuantizeRows,
	// DecodeMatVec), used under mu so that those calls allocate nothing.
	mm matMulTask
	qr quantizeRowsTask
	fv fusedTask
}

// parker is one goroutine's place to sleep. sleeping is 1 while it is
// parked (or about to park); a waker that swaps it to 0 owes it one token
// on wake.
type parker struct {
	sleeping atomic.Int32
	wake     chan struct{}
	timer    *time.Timer // bounds one park (see parkTimeout); reused
	_        cpu.CacheLinePad
}

// newParker makes a parker with its wake channel and a stopped timer.
func newParker() parker {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return parker{wake: make(chan struct{}, 1), timer: t}
}

// Spin parameters: a waiting goroutine polls spinChecks times between
// looks at the clock and gives up its processor (runtime.Gosched) at each
// look; after spinBudget without progress it parks.
const (
	spinChecks = 64
	spinBudget = 200 * time.Microsecond
	// parkTimeout bounds one park: a parked goroutine re-checks its
	// condition at least this often. The token protocol below has no lost
	// wake-up under Go's sequentially consistent atomics, but a store-load
	// reordering (seen once under qemu-user's emulation of arm64 atomics)
	// would otherwise hang the pool; with the bound it costs at most this
	// much latency, and an idle worker wakes ~200 times a second.
	parkTimeout = 5 * time.Millisecond
)

// NewPool starts a pool of n threads (n-1 goroutines plus the caller of Do).
// n <= 0 means DefaultThreads().
func NewPool(n int) *Pool {
	if n <= 0 {
		n = DefaultThreads()
	}
	p := &Pool{n: n, workers: make([]parker, n-1), done: newParker()}
	p.exited.Add(n - 1)
	for i := range p.workers {
		p.workers[i] = newParker()
		go p.work(i + 1)
	}
	return p
}

// Threads returns the number of workers, the caller included (1 for a nil
// pool, which runs every task on the caller).
func (p *Pool) Threads() int {
	if p == nil {
		return 1
	}
	return p.n
}

// Do runs t.Run(w, Threads()) on every worker w and returns when all have
// returned. It allocates nothing. A nil pool runs t.Run(0, 1) inline.
func (p *Pool) Do(t Task) {
	if p == nil {
		t.Run(0, 1)
		return
	}
	p.mu.Lock()
	p.doLocked(t)
	p.mu.Unlock()
}

// doLocked is Do for a caller that holds p.mu.
func (p *Pool) doLocked(t Task) {
	if p.closed {
		panic("kernels: Do on a closed Pool")
	}
	if p.n == 1 {
		t.Run(0, 1)
		return
	}
	p.task = t
	p.pending.Store(int32(p.n - 1))
	p.gen.Add(1)
	for i := range p.workers {
		p.workers[i].wakeUp()
	}
	t.Run(0, p.n)
	if p.pending.Load() != 0 {
		p.done.await(p.finished)
	}
	p.task = nil
}

func (p *Pool) finished() bool { return p.pending.Load() == 0 }

// work is the loop of worker id: wait for a new generation, run the task,
// report completion.
func (p *Pool) work(id int) {
	defer p.exited.Done()
	pk := &p.workers[id-1]
	seen := uint64(0)
	for {
		pk.await(func() bool { return p.gen.Load() != seen })
		seen = p.gen.Load()
		if p.quit {
			return
		}
		p.task.Run(id, p.n)
		if p.pending.Add(-1) == 0 {
			p.done.wakeUp()
		}
	}
}

// Close stops the workers and waits for them to exit. Do must not be called
// afterwards. Closing twice is harmless.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed, p.quit = true, true
	p.gen.Add(1)
	for i := range p.workers {
		p.workers[i].wakeUp()
	}
	p.exited.Wait()
}

// await returns once ready() holds: it spins (see spinChecks, spinBudget),
// then parks until a wakeUp. Wake-ups may be spurious (a waker of an
// earlier generation), so it re-checks after each.
func (pk *parker) await(ready func() bool) {
	deadline := time.Now().Add(spinBudget)
	for {
		for range spinChecks {
			if ready() {
				return
			}
		}
		if time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
	}
	for {
		pk.sleeping.Store(1)
		if ready() {
			pk.unclaim()
			return
		}
		pk.park()
		if ready() {
			return
		}
	}
}

// park sleeps until a wake-up token or parkTimeout. After it returns,
// sleeping is 0 and no token is owed to pk.
func (pk *parker) park() {
	pk.timer.Reset(parkTimeout)
	select {
	case <-pk.wake: // the waker already set sleeping to 0
		pk.timer.Stop()
	case <-pk.timer.C:
		pk.unclaim()
	}
}

// unclaim sets sleeping back to 0; when a waker got there first, it takes
// the token that waker sends.
func (pk *parker) unclaim() {
	if !pk.sleeping.CompareAndSwap(1, 0) {
		<-pk.wake
	}
}

// wakeUp wakes pk if it is parked. The waker must have made pk's condition
// true before calling it.
func (pk *parker) wakeUp() {
	if pk.sleeping.CompareAndSwap(1, 0) {
		pk.wake <- struct{}{}
	}
}

// DefaultThreads is the thread count used when none is given: the number of
// physical cores this process may run on (hyper-threads share one core's
// execution units, and a matmul that saturates them gains nothing from the
// second thread), at most runtime.NumCPU(). Where the core topology is
// unknown (outside Linux, or without /sys) it is runtime.NumCPU().
func DefaultThreads() int {
	n := runtime.NumCPU()
	if c := physicalCores(); c > 0 && c < n {
		n = c
	}
	return max(n, 1)
}

var (
	sharedMu    sync.Mutex
	sharedPools = map[int]*Pool{}
)

// SharedPool returns the process-wide pool of n threads (n <= 0:
// DefaultThreads()), creating it on first use. Sessions share these pools,
// so a process runs one set of workers per distinct thread count; they are
// never closed.
func SharedPool(n int) *Pool {
	if n <= 0 {
		n = DefaultThreads()
	}
	if n > MaxThreads {
		panic(fmt.Sprintf("kernels: %d threads, at most %d", n, MaxThreads))
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	p := sharedPools[n]
	if p == nil {
		p = NewPool(n)
		sharedPools[n] = p
	}
	return p
}

// MaxThreads bounds a shared pool's size against a mistyped --threads.
const MaxThreads = 1024
