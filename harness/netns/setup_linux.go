//go:build linux

package netns

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// RunDir is where named namespaces are bind-mounted, the directory that
// `ip netns` lists.
const RunDir = "/run/netns"

// MaxPrefix is the longest prefix [NewSetup] accepts: prefix, a pid of up
// to 7 digits, a dash and a 3-digit counter still fit in 15 bytes.
const MaxPrefix = 4

// maxIfName is IFNAMSIZ less the terminating NUL.
const maxIfName = 15

// ErrClosed is returned by every method once [Setup.Cleanup] has run.
var ErrClosed = errors.New("netns: setup already cleaned up")

// nameCounter is per process, not per Setup, so two Setups with the same
// prefix in one process still hand out different names.
var nameCounter atomic.Uint64

// testHookAfterMount, when set by a test, runs in AddNamespace right after
// the bind mount, to fail the call halfway.
var testHookAfterMount func() error

type undoStep struct {
	what string
	fn   func() error
}

// Setup creates namespaces and changes links, and remembers how to undo
// each change. Its methods are safe for concurrent use.
type Setup struct {
	prefix string
	origin *Namespace

	mu   sync.Mutex
	undo []undoStep
	done bool
}

// NewSetup returns a Setup whose names start with prefix (1 to MaxPrefix
// lower-case letters). The namespace of the calling thread becomes
// [Setup.Origin]; links are moved out of it and back into it on cleanup.
func NewSetup(prefix string) (*Setup, error) {
	if !validPrefix(prefix) {
		return nil, fmt.Errorf("netns: prefix %q: want 1 to %d lower-case letters", prefix, MaxPrefix)
	}
	h, err := currentNS()
	if err != nil {
		return nil, fmt.Errorf("netns: opening the current namespace: %w", err)
	}
	nl, err := netlink.NewHandleAt(h, unix.NETLINK_ROUTE)
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("netns: netlink socket in the current namespace: %w", err)
	}
	s := &Setup{prefix: prefix}
	s.origin = &Namespace{setup: s, h: h, nl: nl}
	// First in, last out: the origin stays usable for every other undo.
	if err := s.push("close the origin namespace", s.origin.close); err != nil {
		return nil, err
	}
	return s, nil
}

func validPrefix(p string) bool {
	if len(p) == 0 || len(p) > MaxPrefix {
		return false
	}
	for _, c := range []byte(p) {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// currentNS opens the namespace of the calling goroutine's thread, which
// may be locked inside a namespace by its caller (LockOSThread nests, so
// the unlock here leaves such a lock in place).
func currentNS() (netns.NsHandle, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return netns.Get()
}

// Name returns a fresh name: prefix, process id, dash, counter ("ct4242-7").
// It fits an interface name as long as the counter stays below 1000 with a
// 7-digit pid; callers that need more names use a shorter prefix.
func (s *Setup) Name() string {
	return fmt.Sprintf("%s%d-%d", s.prefix, os.Getpid(), nameCounter.Add(1))
}

// Origin is the namespace the Setup was made in (usually the host's). It
// is not deleted by Cleanup, but changes made to it through the Setup are
// undone.
func (s *Setup) Origin() *Namespace { return s.origin }

// push records an undo step. After Cleanup it runs the step at once, so a
// change that raced with Cleanup is still undone, and reports ErrClosed.
func (s *Setup) push(what string, fn func() error) error {
	s.mu.Lock()
	if !s.done {
		s.undo = append(s.undo, undoStep{what, fn})
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return errors.Join(ErrClosed, fn())
}

func (s *Setup) alive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return ErrClosed
	}
	return nil
}

// Cleanup undoes every recorded change, newest first: links moved into a
// namespace go back where they came from, links and addresses the Setup
// added are removed, and its namespaces are unmounted and their files in
// RunDir removed. It carries on past failures and returns them all joined.
// Calling it again does nothing. Commands started in a namespace should
// have exited first: a running process keeps its namespace alive.
func (s *Setup) Cleanup() error {
	s.mu.Lock()
	steps := s.undo
	s.undo = nil
	s.done = true
	s.mu.Unlock()
	var errs []error
	for i := len(steps) - 1; i >= 0; i-- {
		if err := steps[i].fn(); err != nil {
			errs = append(errs, fmt.Errorf("netns: cleanup: %s: %w", steps[i].what, err))
		}
	}
	return errors.Join(errs...)
}

// AddNamespace creates a new network namespace named by [Setup.Name],
// bind-mounted under RunDir so `ip netns` sees it, with lo up. If a step
// fails, what was made before it stays recorded for Cleanup.
func (s *Setup) AddNamespace() (*Namespace, error) {
	if err := s.alive(); err != nil {
		return nil, err
	}
	name := s.Name()
	path := filepath.Join(RunDir, name)
	// RunDir itself is shared with iproute2 and other Setups: created if
	// missing, never removed.
	if err := os.MkdirAll(RunDir, 0o755); err != nil {
		return nil, fmt.Errorf("netns: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return nil, fmt.Errorf("netns: %w", err)
	}
	f.Close()
	if err := s.push("remove "+path, func() error { return ignoreNotExist(os.Remove(path)) }); err != nil {
		return nil, err
	}
	if err := onThread(func() error { return mountNewNS(path) }); err != nil {
		return nil, fmt.Errorf("netns: creating %s: %w", name, err)
	}
	if err := s.push("unmount "+path, func() error { return unmount(path) }); err != nil {
		return nil, err
	}
	if testHookAfterMount != nil {
		if err := testHookAfterMount(); err != nil {
			return nil, err
		}
	}
	h, err := netns.GetFromPath(path)
	if err != nil {
		return nil, fmt.Errorf("netns: opening %s: %w", path, err)
	}
	nl, err := netlink.NewHandleAt(h, unix.NETLINK_ROUTE)
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("netns: netlink socket in %s: %w", name, err)
	}
	n := &Namespace{name: name, path: path, setup: s, h: h, nl: nl}
	// Open handles pin the namespace: close them before the unmount.
	if err := s.push("close handles of "+name, n.close); err != nil {
		return nil, err
	}
	if err := n.LinkUp("lo"); err != nil {
		return nil, err
	}
	return n, nil
}

// mountNewNS moves the calling thread into a new network namespace and
// pins that namespace by bind-mounting it on path. The caller restores the
// thread.
func mountNewNS(path string) error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	src := fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid())
	if err := unix.Mount(src, path, "none", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind mount on %s: %w", path, err)
	}
	return nil
}

func unmount(path string) error {
	err := unix.Unmount(path, unix.MNT_DETACH)
	// EINVAL: not a mount point any more; ENOENT: file already gone.
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

func ignoreNotExist(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// MoveLink moves the link called name from one namespace to another. The
// undo moves it back, so a device the caller brought along survives the
// deletion of the namespace. Moving a link drops its addresses and takes
// it down, as the kernel always does.
func (s *Setup) MoveLink(name string, from, to *Namespace) error {
	if err := s.alive(); err != nil {
		return err
	}
	if err := moveLink(name, from, to); err != nil {
		return err
	}
	return s.push(fmt.Sprintf("move %s from %s back to %s", name, to, from), func() error {
		err := moveLink(name, to, from)
		if isLinkNotFound(err) {
			return nil // it went away on its own (a TAP whose fd closed)
		}
		return err
	})
}

func moveLink(name string, from, to *Namespace) error {
	return from.with(func(nl *netlink.Handle) error {
		l, err := nl.LinkByName(name)
		if err != nil {
			return fmt.Errorf("netns: link %s in %s: %w", name, from, err)
		}
		return to.withFd(func(fd int) error {
			if err := nl.LinkSetNsFd(l, fd); err != nil {
				return fmt.Errorf("netns: moving %s from %s to %s: %w", name, from, to, err)
			}
			return nil
		})
	})
}

func isLinkNotFound(err error) bool {
	var nf netlink.LinkNotFoundError
	return errors.As(err, &nf) || errors.Is(err, unix.ENODEV)
}
