package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countTask records which workers ran and with which worker count.
type countTask struct {
	calls    [8]atomic.Int32
	badCount atomic.Int32
	want     int
}

func (c *countTask) Run(worker, nWorkers int) {
	if nWorkers != c.want || worker < 0 || worker >= nWorkers {
		c.badCount.Add(1)
		return
	}
	c.calls[worker].Add(1)
}

// check fails unless every worker ran exactly reps times.
func (c *countTask) check(t *testing.T, reps int) {
	t.Helper()
	if b := c.badCount.Load(); b != 0 {
		t.Fatalf("%d calls with a wrong (worker, nWorkers)", b)
	}
	for w := range c.want {
		if got := c.calls[w].Load(); got != int32(reps) {
			t.Fatalf("worker %d ran %d times, want %d", w, got, reps)
		}
	}
}

// TestPoolRunsEveryWorkerOnce: each Do calls Run once per worker, for
// back-to-back dispatches (workers spinning) and for dispatches after an
// idle gap longer than the spin budget (workers parked).
func TestPoolRunsEveryWorkerOnce(t *testing.T) {
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := NewPool(n)
			defer p.Close()
			if p.Threads() != n {
				t.Fatalf("Threads() = %d", p.Threads())
			}
			task := &countTask{want: n}
			const hot = 2000
			for range hot {
				p.Do(task)
			}
			task.check(t, hot)
			for range 3 {
				time.Sleep(2 * spinBudget)
				p.Do(task)
			}
			task.check(t, hot+3)
		})
	}
}

// sumTask has each worker add its share of 0..n-1 to a total, so that a
// worker that runs late (after Do returned) or twice shows in the sum.
type sumTask struct {
	n     int
	total atomic.Int64
}

func (s *sumTask) Run(worker, nWorkers int) {
	var sum int64
	for i := s.n * worker / nWorkers; i < s.n*(worker+1)/nWorkers; i++ {
		sum += int64(i)
	}
	s.total.Add(sum)
}

// TestPoolDoWaitsForAllWorkers: Do returns only after every share is
// added, under concurrent callers that share the pool.
func TestPoolDoWaitsForAllWorkers(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Go(func() {
			task := &sumTask{n: 1000 + g}
			want := int64(task.n) * int64(task.n-1) / 2
			for i := range 500 {
				task.total.Store(0)
				p.Do(task)
				if got := task.total.Load(); got != want {
					errs <- fmt.Sprintf("caller %d rep %d: sum %d, want %d", g, i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestPoolDoAllocatesNothing(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	task := &countTask{want: 2}
	if a := testing.AllocsPerRun(200, func() { p.Do(task) }); a != 0 {
		t.Fatalf("Do allocates %.1f times", a)
	}
}

func TestPoolCloseStopsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	p := NewPool(4)
	p.Do(&countTask{want: 4})
	p.Close()
	p.Close()
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Fatalf("%d goroutines after Close, %d before NewPool", g, before)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Do on a closed pool did not panic")
		}
	}()
	p.Do(&countTask{want: 4})
}

func TestNilPoolRunsInline(t *testing.T) {
	var p *Pool
	task := &countTask{want: 1}
	p.Do(task)
	task.check(t, 1)
	if p.Threads() != 1 {
		t.Fatalf("nil pool Threads() = %d", p.Threads())
	}
}

func TestDefaultThreadsAndSharedPool(t *testing.T) {
	d := DefaultThreads()
	if d < 1 || d > runtime.NumCPU() {
		t.Fatalf("DefaultThreads() = %d outside [1, %d]", d, runtime.NumCPU())
	}
	if c := physicalCores(); c < 0 {
		t.Fatalf("physicalCores() = %d", c)
	}
	if SharedPool(0) != SharedPool(d) || SharedPool(2) != SharedPool(2) {
		t.Fatal("SharedPool does not return one pool per thread count")
	}
	if SharedPool(2).Threads() != 2 {
		t.Fatal("SharedPool(2) has the wrong size")
	}
}

// emptyTask is the cheapest possible task, to time dispatch alone.
type emptyTask struct{}

func (emptyTask) Run(int, int) {}

// BenchmarkPoolDispatch times one dispatch of an empty task across n
// threads: the pool against starting n-1 goroutines and a WaitGroup per
// op, in the same run.
func BenchmarkPoolDispatch(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("pool/%d", n), func(b *testing.B) {
			p := NewPool(n)
			defer p.Close()
			var task emptyTask
			for b.Loop() {
				p.Do(task)
			}
		})
		b.Run(fmt.Sprintf("waitgroup/%d", n), func(b *testing.B) {
			var task emptyTask
			for b.Loop() {
				var wg sync.WaitGroup
				for w := 1; w < n; w++ {
					wg.Go(func() { task.Run(w, n) })
				}
				task.Run(0, n)
				wg.Wait()
			}
		})
	}
}

// TestParkerSurvivesLostWakeup: a parked goroutine whose condition turns
// true without a wake-up (a lost wake-up) still returns, within a few park
// timeouts, instead of hanging the pool.
func TestParkerSurvivesLostWakeup(t *testing.T) {
	pk := newParker()
	var ready atomic.Bool
	done := make(chan struct{})
	go func() {
		pk.await(ready.Load)
		close(done)
	}()
	time.Sleep(spinBudget + 20*time.Millisecond) // past the spin: parked
	ready.Store(true)                            // and no wakeUp
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("parker hung after a lost wake-up")
	}
	if pk.sleeping.Load() != 0 || len(pk.wake) != 0 {
		t.Fatalf("parker left sleeping=%d with %d tokens", pk.sleeping.Load(), len(pk.wake))
	}
}
