package testbench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// Standalone runs f as a test outside `go test`'s tests: in an Example,
// whose printed output go test compares, or in a program. What the bench
// logs and every failure go to w; cleanups run when f returns or stops
// (Fatalf, Skipf), last registered first, and the temporary directories
// go with them. It returns whether f passed (a skip passes).
func Standalone(name string, w io.Writer, f func(t T)) (passed bool) {
	s := &standalone{name: name, w: w}
	s.run(func() { f(s) })
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.run(s.cleanups[i])
	}
	for _, d := range s.dirs {
		os.RemoveAll(d)
	}
	return !s.Failed()
}

// standalone is Standalone's T.
type standalone struct {
	name     string
	w        io.Writer
	mu       sync.Mutex
	failed   bool
	cleanups []func()
	dirs     []string
}

// run calls f on a goroutine of its own, as go test does, so that Fatalf
// and Skipf can end it with runtime.Goexit.
func (s *standalone) run(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func (s *standalone) Helper()                 {}
func (s *standalone) Name() string            { return s.name }
func (s *standalone) Cleanup(f func())        { s.cleanups = append(s.cleanups, f) }
func (s *standalone) Logf(f string, a ...any) { fmt.Fprintf(s.w, f+"\n", a...) }

func (s *standalone) TempDir() string {
	d, err := os.MkdirTemp("", "testbench-")
	if err != nil {
		s.Fatalf("TempDir: %v", err)
	}
	s.dirs = append(s.dirs, d)
	return d
}

func (s *standalone) Errorf(f string, a ...any) {
	s.mu.Lock()
	s.failed = true
	s.mu.Unlock()
	fmt.Fprintf(s.w, "FAIL: "+f+"\n", a...)
}

func (s *standalone) Fatalf(f string, a ...any) {
	s.Errorf(f, a...)
	runtime.Goexit()
}

func (s *standalone) Skipf(f string, a ...any) {
	fmt.Fprintf(s.w, "SKIP: "+f+"\n", a...)
	runtime.Goexit()
}

func (s *standalone) Failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
