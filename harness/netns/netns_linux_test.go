//go:build linux

package netns

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/rocesim/cosim/harness/netns/netnstest"
)

// newSetup is the usual test preamble: privileges, leak check, a Setup
// cleaned up at the end.
func newSetup(t *testing.T) *Setup {
	t.Helper()
	netnstest.NeedRoot(t)
	netnstest.NoLeaks(t)
	s, err := NewSetup("nt")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Cleanup()) })
	return s
}

func TestNames(t *testing.T) {
	s := &Setup{prefix: "abcd"}
	seen := map[string]bool{}
	pid := strconv.Itoa(os.Getpid())
	for range 100 {
		n := s.Name()
		assert.False(t, seen[n], "name %s handed out twice", n)
		seen[n] = true
		assert.True(t, strings.HasPrefix(n, "abcd"+pid+"-"), n)
		assert.LessOrEqual(t, len(n), maxIfName, n)
	}
	for _, bad := range []string{"", "abcde", "Ab", "a1", "a-"} {
		_, err := NewSetup(bad)
		assert.Error(t, err, "prefix %q", bad)
	}
}

func TestNamespaceVisibleAndRemoved(t *testing.T) {
	s := newSetup(t)
	ns, err := s.AddNamespace()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(RunDir, ns.Name()), ns.Path())
	assert.FileExists(t, ns.Path())

	if ip, err := exec.LookPath("ip"); err == nil {
		out, err := exec.Command(ip, "netns", "list").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), ns.Name(), "ip netns list must see the namespace")
	} else {
		t.Log("ip not installed: not checking that `ip netns list` sees the namespace")
	}

	lo, err := ns.Link("lo")
	require.NoError(t, err)
	assert.NotZero(t, lo.Attrs().Flags&net.FlagUp, "lo must be up")

	require.NoError(t, s.Cleanup())
	assert.NoFileExists(t, ns.Path())
	assert.NoError(t, s.Cleanup(), "a second Cleanup does nothing")
	_, err = s.AddNamespace()
	assert.ErrorIs(t, err, ErrClosed)
	_, err = ns.Link("lo")
	assert.ErrorIs(t, err, ErrClosed, "a closed namespace must not fall back to the caller's")
}

// TestVethPing wires two namespaces with a veth pair made in the origin
// and moved, and pings across it.
func TestVethPing(t *testing.T) {
	s := newSetup(t)
	a, err := s.AddNamespace()
	require.NoError(t, err)
	b, err := s.AddNamespace()
	require.NoError(t, err)
	va, vb := s.Name(), s.Name()
	require.NoError(t, s.Origin().AddLink(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: va}, PeerName: vb}))
	require.NoError(t, s.MoveLink(va, s.Origin(), a))
	require.NoError(t, s.MoveLink(vb, s.Origin(), b))
	_, err = s.Origin().Link(va)
	require.Error(t, err, "moved link still in the origin")

	mac := net.HardwareAddr{0x02, 0, 0, 0, 0xaa, 0x01}
	require.NoError(t, a.SetMAC(va, mac))
	require.NoError(t, a.SetAddr(va, netip.MustParsePrefix("192.0.2.1/24")))
	require.NoError(t, b.SetAddr(vb, netip.MustParsePrefix("192.0.2.2/24")))
	require.NoError(t, a.SetAddr(va, netip.MustParsePrefix("192.0.2.1/24")), "adding an address twice is fine")
	require.NoError(t, a.LinkUp(va))
	require.NoError(t, b.LinkUp(vb))
	l, err := a.Link(va)
	require.NoError(t, err)
	assert.Equal(t, mac, l.Attrs().HardwareAddr)

	out, err := a.CombinedOutput(exec.Command("ping", "-c", "3", "-i", "0.2", "-W", "2", "192.0.2.2"))
	require.NoError(t, err, "ping: %s", out)
	assert.Contains(t, string(out), "3 received")
}

func TestStartRunsInsideNamespace(t *testing.T) {
	s := newSetup(t)
	ns, err := s.AddNamespace()
	require.NoError(t, err)
	var st os.FileInfo
	st, err = os.Stat(ns.Path())
	require.NoError(t, err)
	want := fmt.Sprintf("net:[%d]", inode(st))

	out, err := ns.CombinedOutput(exec.Command("readlink", "/proc/self/ns/net"))
	require.NoError(t, err, "%s", out)
	assert.Equal(t, want, strings.TrimSpace(string(out)))

	host, err := exec.Command("readlink", "/proc/self/ns/net").Output()
	require.NoError(t, err)
	assert.NotEqual(t, want, strings.TrimSpace(string(host)), "a plain command must stay outside")
}

func TestDoRestoresThread(t *testing.T) {
	s := newSetup(t)
	ns, err := s.AddNamespace()
	require.NoError(t, err)
	origin, err := currentNS()
	require.NoError(t, err)
	defer origin.Close()

	for range 20 {
		err := ns.Do(func() error {
			cur, err := netns.Get()
			if err != nil {
				return err
			}
			defer cur.Close()
			if cur.Equal(origin) {
				return errors.New("still in the origin namespace")
			}
			links, err := netlink.LinkList()
			if err != nil {
				return err
			}
			if len(links) != 1 || links[0].Attrs().Name != "lo" {
				return fmt.Errorf("want only lo inside, got %d links", len(links))
			}
			return nil
		})
		require.NoError(t, err)
	}
	// Threads Do used went back to the pool: every thread we land on now
	// must be in the origin namespace.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cur, err := netns.Get()
			if err != nil {
				errs <- err
				return
			}
			defer cur.Close()
			if !cur.Equal(origin) {
				errs <- errors.New("a pooled thread is still in another namespace")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDoPanicAndGoexit(t *testing.T) {
	s := newSetup(t)
	ns, err := s.AddNamespace()
	require.NoError(t, err)
	assert.PanicsWithValue(t, "boom", func() {
		_ = ns.Do(func() error { panic("boom") })
	})
	err = ns.Do(func() error {
		runtime.Goexit()
		return nil
	})
	assert.ErrorIs(t, err, errGoexit)
	want := errors.New("from fn")
	assert.ErrorIs(t, ns.Do(func() error { return want }), want)
}

// TestCleanupAfterPartialFailure fails AddNamespace after its bind mount
// and other calls halfway; Cleanup must still remove everything.
func TestCleanupAfterPartialFailure(t *testing.T) {
	s := newSetup(t)
	before, err := os.ReadDir(RunDir)
	require.NoError(t, err)

	hookErr := errors.New("injected failure")
	testHookAfterMount = func() error { return hookErr }
	_, err = s.AddNamespace()
	testHookAfterMount = nil
	require.ErrorIs(t, err, hookErr)
	after, err := os.ReadDir(RunDir)
	require.NoError(t, err)
	assert.Len(t, after, len(before)+1, "the half-made namespace is still there before Cleanup")

	ns, err := s.AddNamespace()
	require.NoError(t, err)
	assert.Error(t, s.MoveLink("nosuchlink0", s.Origin(), ns))
	assert.Error(t, ns.AddLink(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "a-name-far-too-long"}}))
	d := s.Name()
	require.NoError(t, ns.AddLink(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: d}}))
	assert.Error(t, ns.AddLink(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: d}}), "duplicate")

	require.NoError(t, s.Cleanup())
	// NoLeaks checks links and RunDir at the end of the test.
}

// TestOriginChangesUndone borrows a device the Setup did not make: every
// change to it is undone and it survives its namespace.
func TestOriginChangesUndone(t *testing.T) {
	netnstest.NeedRoot(t)
	netnstest.NoLeaks(t)
	s, err := NewSetup("nt")
	require.NoError(t, err)
	defer s.Cleanup()

	// A veth, because bridges cannot change namespace.
	name := s.Name()
	require.NoError(t, netlink.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: name}, PeerName: s.Name()}))
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(name); err == nil {
			assert.NoError(t, netlink.LinkDel(l))
		}
	})
	orig, err := netlink.LinkByName(name)
	require.NoError(t, err)
	oldMAC := orig.Attrs().HardwareAddr

	o := s.Origin()
	require.NoError(t, o.SetMAC(name, net.HardwareAddr{0x02, 0, 0, 0, 0xbb, 0x01}))
	require.NoError(t, o.LinkUp(name))
	require.NoError(t, o.SetAddr(name, netip.MustParsePrefix("198.51.100.7/24")))
	ns, err := s.AddNamespace()
	require.NoError(t, err)
	require.NoError(t, s.MoveLink(name, o, ns))
	_, err = ns.Link(name)
	require.NoError(t, err)

	require.NoError(t, s.Cleanup())
	l, err := netlink.LinkByName(name)
	require.NoError(t, err, "the borrowed link must come back from the deleted namespace")
	assert.Equal(t, oldMAC, l.Attrs().HardwareAddr)
	assert.Zero(t, l.Attrs().Flags&net.FlagUp, "it was down before")
	addrs, err := netlink.AddrList(l, netlink.FAMILY_V4)
	require.NoError(t, err)
	assert.Empty(t, addrs)
}

// TestParallelSetups runs Setups side by side, as parallel tests would.
func TestParallelSetups(t *testing.T) {
	netnstest.NeedRoot(t)
	netnstest.NoLeaks(t)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		names = map[string]bool{}
	)
	errs := make(chan error, 16) // each worker sends at most twice
	for range 8 {
		wg.Go(func() {
			s, err := NewSetup("np")
			if err != nil {
				errs <- err
				return
			}
			defer func() { errs <- s.Cleanup() }()
			ns, err := s.AddNamespace()
			if err != nil {
				errs <- err
				return
			}
			d := s.Name()
			if err := ns.AddLink(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: d}}); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if names[ns.Name()] || names[d] {
				errs <- fmt.Errorf("name reused: %s or %s", ns.Name(), d)
			}
			names[ns.Name()], names[d] = true, true
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Len(t, names, 16)
}

// TestSetupInsideNamespace: a Setup made inside Do takes that namespace
// as its origin, and moves links back there.
func TestSetupInsideNamespace(t *testing.T) {
	s := newSetup(t)
	outer, err := s.AddNamespace()
	require.NoError(t, err)
	err = outer.Do(func() error {
		inner, err := NewSetup("ni")
		if err != nil {
			return err
		}
		defer inner.Cleanup()
		links, err := inner.Origin().Links()
		if err != nil {
			return err
		}
		if len(links) != 1 || links[0].Attrs().Name != "lo" {
			return fmt.Errorf("origin should be the outer namespace with only lo, has %d links", len(links))
		}
		v := inner.Name()
		if err := inner.Origin().AddLink(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: v}, PeerName: inner.Name()}); err != nil {
			return err
		}
		ns, err := inner.AddNamespace()
		if err != nil {
			return err
		}
		if err := inner.MoveLink(v, inner.Origin(), ns); err != nil {
			return err
		}
		return inner.Cleanup()
	})
	require.NoError(t, err)
	links, err := outer.Links()
	require.NoError(t, err)
	assert.Len(t, links, 1, "the inner Setup removed its veth pair from the outer namespace")
}
