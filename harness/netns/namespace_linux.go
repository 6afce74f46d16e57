//go:build linux

package netns

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"runtime"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Namespace is a network namespace reached through a [Setup]: either one
// the Setup created or its origin.
type Namespace struct {
	name  string // "" for the origin
	path  string
	setup *Setup

	// mu keeps close from pulling the handles away under a running call.
	mu     sync.RWMutex
	h      netns.NsHandle
	nl     *netlink.Handle
	closed bool
}

// Name is the namespace's name under RunDir ("" for the origin).
func (n *Namespace) Name() string { return n.name }

// Path is the bind mount that pins the namespace ("" for the origin).
func (n *Namespace) Path() string { return n.path }

func (n *Namespace) String() string {
	if n.name == "" {
		return "the origin namespace"
	}
	return "namespace " + n.name
}

// owned says whether Cleanup deletes the namespace, in which case changes
// inside it need no undo of their own.
func (n *Namespace) owned() bool { return n.path != "" }

func (n *Namespace) close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	// A closed netlink.Handle silently falls back to the calling thread's
	// namespace, so the closed flag must guard every use.
	n.nl.Close()
	return n.h.Close()
}

func (n *Namespace) with(fn func(nl *netlink.Handle) error) error {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		return fmt.Errorf("%s: %w", n, ErrClosed)
	}
	return fn(n.nl)
}

func (n *Namespace) withFd(fn func(fd int) error) error {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		return fmt.Errorf("%s: %w", n, ErrClosed)
	}
	return fn(int(n.h))
}

// Link looks a link up by name inside the namespace.
func (n *Namespace) Link(name string) (netlink.Link, error) {
	var l netlink.Link
	err := n.with(func(nl *netlink.Handle) error {
		var err error
		l, err = nl.LinkByName(name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("netns: link %s in %s: %w", name, n, err)
	}
	return l, nil
}

// Links lists the links inside the namespace.
func (n *Namespace) Links() ([]netlink.Link, error) {
	var ls []netlink.Link
	err := n.with(func(nl *netlink.Handle) error {
		var err error
		ls, err = nl.LinkList()
		// Interrupted by a concurrent change: the dump is worth retrying.
		for try := 0; errors.Is(err, netlink.ErrDumpInterrupted) && try < 20; try++ {
			ls, err = nl.LinkList()
		}
		return err
	})
	return ls, err
}

// AddLink creates a link (a netlink.Veth, netlink.Bridge, netlink.Dummy,
// ...) inside the namespace; Cleanup deletes it again.
func (n *Namespace) AddLink(l netlink.Link) error {
	name := l.Attrs().Name
	if name == "" || len(name) > maxIfName {
		return fmt.Errorf("netns: link name %q: want 1 to %d bytes", name, maxIfName)
	}
	if err := n.setup.alive(); err != nil {
		return err
	}
	if err := n.with(func(nl *netlink.Handle) error { return nl.LinkAdd(l) }); err != nil {
		return fmt.Errorf("netns: adding %s %s in %s: %w", l.Type(), name, n, err)
	}
	return n.setup.push(fmt.Sprintf("delete %s in %s", name, n), func() error {
		return n.with(func(nl *netlink.Handle) error {
			l, err := nl.LinkByName(name)
			if err == nil {
				err = nl.LinkDel(l)
			}
			if isLinkNotFound(err) {
				return nil // a veth peer goes with its twin
			}
			return err
		})
	})
}

// LinkUp sets links up. A link that was down in a namespace the Setup does
// not own is set down again by Cleanup.
func (n *Namespace) LinkUp(names ...string) error {
	for _, name := range names {
		l, err := n.Link(name)
		if err != nil {
			return err
		}
		wasUp := l.Attrs().Flags&net.FlagUp != 0
		if err := n.with(func(nl *netlink.Handle) error { return nl.LinkSetUp(l) }); err != nil {
			return fmt.Errorf("netns: setting %s up in %s: %w", name, n, err)
		}
		if wasUp || n.owned() {
			continue
		}
		err = n.setup.push(fmt.Sprintf("set %s down in %s", name, n), func() error {
			return n.with(func(nl *netlink.Handle) error {
				l, err := nl.LinkByName(name)
				if err == nil {
					err = nl.LinkSetDown(l)
				}
				if isLinkNotFound(err) {
					return nil
				}
				return err
			})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// SetAddr adds an address with its prefix length (192.0.2.1/24) to a link.
// An address that is already there is left alone and not removed later.
func (n *Namespace) SetAddr(name string, p netip.Prefix) error {
	if !p.IsValid() {
		return fmt.Errorf("netns: invalid address prefix %v", p)
	}
	a := p.Addr().Unmap()
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: a.AsSlice(), Mask: net.CIDRMask(p.Bits(), a.BitLen())}}
	l, err := n.Link(name)
	if err != nil {
		return err
	}
	err = n.with(func(nl *netlink.Handle) error { return nl.AddrAdd(l, addr) })
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("netns: adding %v to %s in %s: %w", p, name, n, err)
	}
	if n.owned() {
		return nil
	}
	return n.setup.push(fmt.Sprintf("remove %v from %s in %s", p, name, n), func() error {
		return n.with(func(nl *netlink.Handle) error {
			l, err := nl.LinkByName(name)
			if err == nil {
				err = nl.AddrDel(l, addr)
			}
			if isLinkNotFound(err) || errors.Is(err, unix.EADDRNOTAVAIL) {
				return nil
			}
			return err
		})
	})
}

// SetMAC sets a link's Ethernet address. Outside the Setup's own
// namespaces Cleanup puts the old address back.
func (n *Namespace) SetMAC(name string, mac net.HardwareAddr) error {
	l, err := n.Link(name)
	if err != nil {
		return err
	}
	old := l.Attrs().HardwareAddr
	if err := n.with(func(nl *netlink.Handle) error { return nl.LinkSetHardwareAddr(l, mac) }); err != nil {
		return fmt.Errorf("netns: setting MAC %v on %s in %s: %w", mac, name, n, err)
	}
	if n.owned() || bytes.Equal(old, mac) {
		return nil
	}
	return n.setup.push(fmt.Sprintf("restore MAC %v on %s in %s", old, name, n), func() error {
		return n.with(func(nl *netlink.Handle) error {
			l, err := nl.LinkByName(name)
			if err == nil {
				err = nl.LinkSetHardwareAddr(l, old)
			}
			if isLinkNotFound(err) {
				return nil
			}
			return err
		})
	})
}

// errGoexit reports that fn ended its goroutine (t.FailNow does that).
var errGoexit = errors.New("netns: function called runtime.Goexit inside the namespace (t.FailNow or require in Do?)")

// Do runs fn on an OS thread that has entered the namespace, then puts the
// thread back. Only fn's own goroutine is inside: goroutines it starts run
// on other threads, in the original namespace. Sockets and files opened in
// fn stay bound to the namespace after Do returns. A panic in fn is
// re-raised in the caller.
func (n *Namespace) Do(fn func() error) error {
	return onThread(func() error {
		if err := n.withFd(func(fd int) error { return unix.Setns(fd, unix.CLONE_NEWNET) }); err != nil {
			return fmt.Errorf("netns: entering %s: %w", n, err)
		}
		return fn()
	})
}

// Start starts cmd inside the namespace: the child is forked from a thread
// that is in the namespace and keeps it. Wait for it with cmd.Wait.
func (n *Namespace) Start(cmd *exec.Cmd) error {
	return n.Do(cmd.Start)
}

// Run starts cmd inside the namespace and waits for it.
func (n *Namespace) Run(cmd *exec.Cmd) error {
	if err := n.Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// CombinedOutput runs cmd inside the namespace and returns its standard
// output and standard error together.
func (n *Namespace) CombinedOutput(cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("netns: CombinedOutput: Stdout or Stderr already set")
	}
	var b bytes.Buffer
	cmd.Stdout = &b
	cmd.Stderr = &b
	err := n.Run(cmd)
	return b.Bytes(), err
}

type threadResult struct {
	err      error
	panicked bool
	p        any
}

// onThread runs fn in a new goroutine locked to its thread, and returns
// the thread to the namespace it started in. If that fails the thread is
// left locked, so the runtime throws it away with the goroutine instead of
// reusing a thread in the wrong namespace.
func onThread(fn func() error) error {
	res := make(chan threadResult, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			res <- threadResult{err: fmt.Errorf("netns: current namespace: %w", err)}
			return
		}
		var r threadResult
		finished := false
		defer func() {
			if !finished {
				// recover is nil after runtime.Goexit, non-nil after a panic.
				if p := recover(); p != nil {
					r = threadResult{panicked: true, p: p}
				} else {
					r.err = errGoexit
				}
			}
			rerr := netns.Set(orig)
			orig.Close()
			if rerr != nil {
				r.err = errors.Join(r.err, fmt.Errorf("netns: restoring the thread's namespace: %w", rerr))
			} else {
				runtime.UnlockOSThread()
			}
			res <- r
		}()
		r.err = fn()
		finished = true
	}()
	r := <-res
	if r.panicked {
		panic(r.p)
	}
	return r.err
}
