//go:build linux

package tap

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/songgao/water"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/rocesim/cosim/harness/netns"
	"github.com/rocesim/cosim/harness/netns/netnstest"
)

// env is one test's world: a leak check, a netns.Setup, and persistent
// TAPs to delete at the end.
type env struct {
	t *testing.T
	s *netns.Setup

	mu     sync.Mutex
	doomed []string
}

// newEnv registers its cleanups in the order they must run backwards:
// the leak check last, persistent TAPs deleted after the Setup has moved
// them back home, TAPs opened later closed first.
func newEnv(t *testing.T) *env {
	t.Helper()
	netnstest.NeedTUN(t)
	netnstest.NoLeaks(t)
	e := &env{t: t}
	t.Cleanup(func() {
		for _, name := range e.doomed {
			if err := Delete(name); err != nil && !errors.Is(err, ErrNotFound) {
				t.Errorf("deleting %s: %v", name, err)
			}
		}
	})
	s, err := netns.NewSetup("tp")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Cleanup()) })
	e.s = s
	return e
}

func (e *env) name() string { return e.s.Name() }

func (e *env) deleteLater(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.doomed = append(e.doomed, name)
}

// open opens a TAP and closes it at the end of the test.
func (e *env) open(cfg Config) *TAP {
	e.t.Helper()
	tp, err := Open(cfg)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { tp.Close() })
	return tp
}

// quiet turns IPv6 off on a device so the kernel's router solicitations
// and MLD reports stay out of frame-exact tests.
func quiet(name string) {
	_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+name+"/disable_ipv6", []byte("1"), 0o644)
}

// bridged is two namespaced hosts, 192.0.2.1 and .2, on TAPs opened
// with cfg's options, joined by a bridge of two pumps (one per direction).
type bridged struct {
	a, b   *netns.Namespace
	ta, tb *TAP
}

// pumpFunc copies frames from src to dst on goroutines of wg until src
// is closed, and sends what ended it to errs.
type pumpFunc func(wg *sync.WaitGroup, errs chan<- error, dst, src *TAP)

// bridge makes the pair; the test's cleanup closes the TAPs, waits for
// the pumps and checks how they ended.
func (e *env) bridge(offload bool, pump pumpFunc) *bridged {
	t := e.t
	t.Helper()
	var p bridged
	var err error
	p.a, err = e.s.AddNamespace()
	require.NoError(t, err)
	p.b, err = e.s.AddNamespace()
	require.NoError(t, err)
	p.ta = e.open(Config{Name: e.name(), Mode: ModeCreateNew, Offload: offload})
	p.tb = e.open(Config{Name: e.name(), Mode: ModeCreateNew, Offload: offload})
	for _, x := range []struct {
		tp   *TAP
		ns   *netns.Namespace
		addr string
	}{{p.ta, p.a, "192.0.2.1/24"}, {p.tb, p.b, "192.0.2.2/24"}} {
		require.NoError(t, e.s.MoveLink(x.tp.Name(), e.s.Origin(), x.ns))
		require.NoError(t, x.ns.SetAddr(x.tp.Name(), netip.MustParsePrefix(x.addr)))
		require.NoError(t, x.ns.LinkUp(x.tp.Name()))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	pump(&wg, errs, p.tb, p.ta)
	pump(&wg, errs, p.ta, p.tb)
	t.Cleanup(func() {
		p.ta.Close()
		p.tb.Close()
		wg.Wait()
		close(errs)
		for err := range errs {
			assert.NoError(t, err)
		}
	})
	return &p
}

func TestPingThroughBridgedTAPs(t *testing.T) {
	p := newEnv(t).bridge(false, pump)
	out, err := p.a.CombinedOutput(exec.Command("ping", "-c", "3", "-i", "0.2", "-W", "2", "192.0.2.2"))
	require.NoError(t, err, "ping: %s", out)
	assert.Contains(t, string(out), "3 received")
	for _, tp := range []*TAP{p.ta, p.tb} {
		st := tp.Stats()
		// Three echoes each way, plus ARP.
		assert.GreaterOrEqual(t, st.Read.Frames, uint64(4), "%s: %+v", tp.Name(), st)
		assert.Zero(t, st.Read.Dropped()+st.Write.Dropped(), "%s: %+v", tp.Name(), st)
	}
}

// pump copies frames from src to dst, one Read and one Write at a time,
// until either is closed.
func pump(wg *sync.WaitGroup, errs chan<- error, dst, src *TAP) {
	wg.Go(func() {
		errs <- readAll(src, func(f []byte) error {
			var fe *FrameError
			if _, err := dst.Write(f); err != nil && !errors.As(err, &fe) {
				return err
			}
			return nil
		})
	})
}

// readAll hands every frame src delivers to put until src is closed (nil)
// or Read or put fails. Frames src counts and skips are left out.
func readAll(src *TAP, put func([]byte) error) error {
	buf := make([]byte, readBufLen)
	var fe *FrameError
	for {
		n, err := src.Read(buf)
		if errors.As(err, &fe) {
			continue // counted in src's Stats
		}
		if err == nil {
			err = put(buf[:n])
		}
		if err != nil {
			return ignoreClosed(err)
		}
	}
}

func ignoreClosed(err error) error {
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// TestExistingTAPKeepsPersistence is pitfall (a): water always writes the
// persist flag, so a plain non-persistent open deletes a persistent TAP on
// close. Open must keep such a TAP as it was.
func TestExistingTAPKeepsPersistence(t *testing.T) {
	e := newEnv(t)
	name := e.name()
	e.deleteLater(name)
	mk := func() {
		tp, err := Open(Config{Name: name, Mode: ModeCreateNew, Persist: true})
		require.NoError(t, err)
		assert.True(t, tp.Created())
		assert.True(t, tp.Persistent())
		require.NoError(t, tp.Close())
		info, err := Inspect(name)
		require.NoError(t, err, "a persistent TAP outlives Close")
		assert.True(t, info.Persistent)
	}

	t.Run("the pitfall is real", func(t *testing.T) {
		mk()
		ifce, err := water.New(water.Config{DeviceType: water.TAP, PlatformSpecificParams: water.PlatformSpecificParams{Name: name}})
		require.NoError(t, err)
		require.NoError(t, ifce.Close())
		_, err = Inspect(name)
		assert.ErrorIs(t, err, ErrNotFound, "water with Persist=false clears the flag, so close deletes the TAP")
	})

	for _, mode := range []Mode{ModeOpen, ModeCreate} {
		t.Run(mode.String(), func(t *testing.T) {
			if _, err := Inspect(name); err != nil {
				mk()
			}
			before, err := Inspect(name)
			require.NoError(t, err)
			tp, err := Open(Config{Name: name, Mode: mode}) // Persist false
			require.NoError(t, err)
			assert.False(t, tp.Created())
			assert.True(t, tp.Persistent())
			assert.Equal(t, before.Index, tp.Index())
			require.NoError(t, tp.Close())
			after, err := Inspect(name)
			require.NoError(t, err, "the TAP existed before Open and must survive Close")
			assert.Equal(t, before, after)
		})
	}
}

// TestMovedTAPIsNotRecreated is pitfall (b): after a TAP moves into another
// namespace, opening its name from the origin would make a new TAP.
func TestMovedTAPIsNotRecreated(t *testing.T) {
	e := newEnv(t)
	ns, err := e.s.AddNamespace()
	require.NoError(t, err)
	name := e.name()
	e.deleteLater(name)
	tp, err := Open(Config{Name: name, Mode: ModeCreateNew, Persist: true})
	require.NoError(t, err)
	require.NoError(t, tp.Close())
	require.NoError(t, e.s.MoveLink(name, e.s.Origin(), ns))

	_, err = Open(Config{Name: name, Mode: ModeOpen})
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "another network namespace")
	_, err = Inspect(name)
	assert.ErrorIs(t, err, ErrNotFound, "the refused Open must not have made a TAP")

	// From inside its namespace the same call reaches the moved TAP.
	moved, err := ns.Link(name)
	require.NoError(t, err)
	err = ns.Do(func() error {
		tp, err := Open(Config{Name: name, Mode: ModeOpen})
		if err != nil {
			return err
		}
		defer tp.Close()
		if tp.Created() || tp.Index() != moved.Attrs().Index {
			return fmt.Errorf("got a different TAP: created=%v index=%d, want index %d", tp.Created(), tp.Index(), moved.Attrs().Index)
		}
		return nil
	})
	require.NoError(t, err)
	_, err = ns.Link(name)
	require.NoError(t, err, "still there after Close inside the namespace")

	t.Run("what the kernel does unguarded", func(t *testing.T) {
		ifce, err := water.New(water.Config{DeviceType: water.TAP, PlatformSpecificParams: water.PlatformSpecificParams{Name: name}})
		require.NoError(t, err)
		defer ifce.Close()
		info, err := Inspect(name)
		require.NoError(t, err, "a second TAP of the same name appeared in the origin")
		assert.True(t, info.IsTAP())
	})
}

// TestRefusesNonTAP: a named device that is not a TAP is never attached
// to, in any mode, and is left unchanged.
func TestRefusesNonTAP(t *testing.T) {
	e := newEnv(t)
	veth, peer, br, tun := e.name(), e.name(), e.name(), e.name()
	require.NoError(t, e.s.Origin().AddLink(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: veth}, PeerName: peer}))
	require.NoError(t, e.s.Origin().AddLink(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: br}}))
	ifce, err := water.New(water.Config{DeviceType: water.TUN, PlatformSpecificParams: water.PlatformSpecificParams{Name: tun}})
	require.NoError(t, err)
	t.Cleanup(func() { ifce.Close() })

	for _, c := range []struct{ name, kind string }{
		{"lo", "loopback"}, {veth, "veth"}, {br, "bridge"}, {tun, "tun"},
	} {
		before, err := Inspect(c.name)
		require.NoError(t, err)
		assert.Equal(t, c.kind, before.Kind)
		for _, mode := range []Mode{ModeCreate, ModeOpen, ModeCreateNew} {
			tp, err := Open(Config{Name: c.name, Mode: mode})
			if !assert.ErrorIs(t, err, ErrNotTAP, "%s in mode %v", c.name, mode) {
				if tp != nil {
					tp.Close()
				}
				continue
			}
			var de *DeviceError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, c.kind, de.Kind)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", c.name))
			assert.Contains(t, err.Error(), c.kind)
		}
		assert.ErrorIs(t, Delete(c.name), ErrNotTAP)
		after, err := Inspect(c.name)
		require.NoError(t, err)
		assert.Equal(t, before, after, "%s must be left as it was", c.name)
	}
}

func TestCreateNewRefusesExistingTAP(t *testing.T) {
	e := newEnv(t)
	tp := e.open(Config{Name: e.name(), Mode: ModeCreateNew})
	_, err := Open(Config{Name: tp.Name(), Mode: ModeCreateNew})
	assert.ErrorIs(t, err, ErrExists)
	_, err = Open(Config{Name: tp.Name(), Mode: ModeCreate})
	assert.ErrorIs(t, err, ErrInUse, "a single-queue TAP takes one opener")
}

func TestKernelChosenName(t *testing.T) {
	netnstest.NeedTUN(t)
	tp, err := Open(Config{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(tp.Name(), "tap"), tp.Name())
	assert.True(t, tp.Created())
	require.NoError(t, tp.Close())
	_, err = Inspect(tp.Name())
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestMTU(t *testing.T) {
	e := newEnv(t)
	name := e.name()
	e.deleteLater(name)
	tp, err := Open(Config{Name: name, Mode: ModeCreateNew, Persist: true, MTU: 9000})
	require.NoError(t, err)
	assert.Equal(t, 9000, tp.MTU())
	assert.Equal(t, 9000+HeaderLen+TagLen, tp.MaxFrame())
	require.NoError(t, tp.Close())
	info, err := Inspect(name)
	require.NoError(t, err)
	assert.Equal(t, 9000, info.MTU)

	_, err = Open(Config{Name: name, Mode: ModeOpen, MTU: 1500})
	assert.ErrorIs(t, err, ErrIncompatible, "Open never changes a TAP it did not create")
	tp, err = Open(Config{Name: name, Mode: ModeOpen})
	require.NoError(t, err)
	assert.Equal(t, 9000, tp.MTU(), "limits follow the existing TAP")
	require.NoError(t, tp.Close())
}

func TestCloseUnblocksRead(t *testing.T) {
	for _, size := range []int{2048, readBufLen} {
		t.Run(fmt.Sprintf("buffer %d", size), func(t *testing.T) {
			e := newEnv(t)
			tp := e.open(Config{Name: e.name(), Mode: ModeCreateNew})
			errc := make(chan error, 1)
			go func() {
				_, err := tp.Read(make([]byte, size))
				errc <- err
			}()
			time.Sleep(50 * time.Millisecond) // let Read block in the poller
			require.NoError(t, tp.Close())
			select {
			case err := <-errc:
				assert.ErrorIs(t, err, os.ErrClosed)
			case <-time.After(2 * time.Second):
				t.Fatal("Close did not wake the pending Read")
			}
			_, err := Inspect(tp.Name())
			assert.ErrorIs(t, err, ErrNotFound, "a non-persistent TAP is gone when Close returns")
			assert.NoError(t, tp.Close(), "second Close")
			_, err = tp.Read(make([]byte, size))
			assert.ErrorIs(t, err, os.ErrClosed)
			_, err = tp.Write(make([]byte, 60))
			assert.ErrorIs(t, err, os.ErrClosed)
			assert.Zero(t, tp.Stats().Read.Failed+tp.Stats().Write.Failed, "closing is not a failure")
		})
	}
}

func TestReadDeadline(t *testing.T) {
	e := newEnv(t)
	tp := e.open(Config{Name: e.name(), Mode: ModeCreateNew})
	require.NoError(t, tp.SetReadDeadline(time.Now().Add(50*time.Millisecond)))
	start := time.Now()
	_, err := tp.Read(make([]byte, 2048))
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestUndeliverableFrames: every frame that cannot go through is counted
// and reported with its reason, in both directions.
func TestUndeliverableFrames(t *testing.T) {
	e := newEnv(t)
	tp := e.open(Config{Name: e.name(), Mode: ModeCreateNew, MTU: 1500})
	quiet(tp.Name())
	require.NoError(t, e.s.Origin().LinkUp(tp.Name()))

	_, err := tp.Write(make([]byte, 10))
	var fe *FrameError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FrameError{Device: tp.Name(), Dir: DirWrite, Reason: ReasonRunt, Len: 10, Limit: HeaderLen}, *fe)
	assert.ErrorIs(t, err, ErrRunt)
	_, err = tp.Write(make([]byte, tp.MaxFrame()+1))
	assert.ErrorIs(t, err, ErrOversize)
	n, err := tp.Write(frame(tp.MaxFrame()))
	assert.NoError(t, err, "a full-size tagged frame is allowed")
	assert.Equal(t, tp.MaxFrame(), n)

	// The host side grows its MTU behind our back and sends a jumbo.
	l, err := netlink.LinkByName(tp.Name())
	require.NoError(t, err)
	require.NoError(t, netlink.LinkSetMTU(l, 9000))
	sendRaw := rawSender(t, tp.Index())
	sendRaw(frame(3000))
	err = readUntil(t, tp, 4096, func(n int, err error) bool {
		return errors.As(err, &fe) && fe.Reason == ReasonOversize && fe.Len == 3000
	})
	assert.ErrorIs(t, err, ErrOversize)
	assert.Contains(t, err.Error(), "3000 bytes, limit 1518")

	sendRaw(frame(200))
	err = readUntil(t, tp, 100, func(n int, err error) bool {
		return errors.As(err, &fe) && fe.Reason == ReasonShortBuffer && fe.Len == 200
	})
	assert.ErrorIs(t, err, ErrShortBuffer)

	want := frame(60)
	sendRaw(want)
	buf := make([]byte, 100)
	require.NoError(t, readUntil(t, tp, 0, func(n int, err error) bool {
		return err == nil && bytes.Equal(buf[:n], want)
	}, buf))

	st := tp.Stats()
	assert.Equal(t, Counters{Frames: 1, Bytes: uint64(tp.MaxFrame()), Runt: 1, Oversize: 1}, st.Write)
	assert.GreaterOrEqual(t, st.Read.Oversize, uint64(1))
	assert.GreaterOrEqual(t, st.Read.ShortBuffer, uint64(1))
	assert.GreaterOrEqual(t, st.Read.Frames, uint64(1))
	assert.Zero(t, st.Read.Failed)
}

// frame builds a test frame of n bytes: broadcast, local experimental
// EtherType 0x88B5, a counting payload.
func frame(n int) []byte {
	f := make([]byte, n)
	copy(f, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5})
	for i := HeaderLen; i < n; i++ {
		f[i] = byte(i)
	}
	return f
}

// rawSender returns a function that makes the host transmit a frame on the
// interface, as if its stack had sent it, so it comes out of the TAP's
// Read. One socket serves all sends: closing a packet socket waits for an
// RCU grace period, some 10 ms.
func rawSender(t *testing.T, ifindex int) func(f []byte) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0) // protocol 0: send only
	require.NoError(t, err)
	t.Cleanup(func() { unix.Close(fd) })
	return func(f []byte) {
		t.Helper()
		sa := &unix.SockaddrLinklayer{Ifindex: ifindex, Halen: 6}
		copy(sa.Addr[:], f[:6])
		require.NoError(t, unix.Sendto(fd, f, 0, sa))
	}
}

// readUntil reads until want accepts a result, skipping anything else the
// host sends; it returns the accepted error. buf, if given, is read into.
func readUntil(t *testing.T, tp *TAP, size int, want func(int, error) bool, buf ...[]byte) error {
	t.Helper()
	b := make([]byte, size)
	if len(buf) > 0 {
		b = buf[0]
	}
	require.NoError(t, tp.SetReadDeadline(time.Now().Add(3*time.Second)))
	defer tp.SetReadDeadline(time.Time{})
	for {
		n, err := tp.Read(b)
		if want(n, err) {
			return err
		}
		require.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the expected frame never came")
	}
}

// TestPersistentOwnedTAP: a persistent TAP with an owner survives Close
// and its owner, not root, can open it again.
func TestPersistentOwnedTAP(t *testing.T) {
	e := newEnv(t)
	name := e.name()
	e.deleteLater(name)
	const nobody = 65534
	tp, err := Open(Config{Name: name, Mode: ModeCreateNew, Persist: true, Owner: &Owner{UID: nobody, GID: nobody}})
	require.NoError(t, err)
	require.NoError(t, tp.Close())
	info, err := Inspect(name)
	require.NoError(t, err)
	assert.True(t, info.Persistent)
	assert.Equal(t, uint32(nobody), info.Owner)
	assert.Equal(t, uint32(nobody), info.Group)

	out, err := asUser(t, nobody, "open", name)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok created=false persistent=true", out)

	out, err = asUser(t, nobody-1, "open", name)
	require.NoError(t, err, "%s", out)
	assert.Contains(t, out, "permission denied")
	assert.Contains(t, out, "not the TAP's owner")

	other := e.name()
	e.deleteLater(other) // in case the refusal ever breaks
	out, err = asUser(t, nobody, "create", other)
	require.NoError(t, err, "%s", out)
	assert.Contains(t, out, "needs CAP_NET_ADMIN")

	info2, err := Inspect(name)
	require.NoError(t, err, "still there after the owner closed it")
	assert.Equal(t, info, info2)
	tp, err = Open(Config{Name: name, Mode: ModeOpen})
	require.NoError(t, err, "root can reopen it too")
	assert.False(t, tp.Created())
	require.NoError(t, tp.Close())
}

const helperEnv = "TAP_TEST_HELPER"

// asUser runs this test binary as a helper (see helperMain) that drops to
// uid and gid and opens or creates name; it returns what the helper says.
func asUser(t *testing.T, uid int, verb, name string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", helperEnv, verb, name, uid))
	// A private mount namespace, so the helper can give itself a
	// world-usable /dev/net/tun whatever the host's mode is.
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestMain(m *testing.M) {
	if arg := os.Getenv(helperEnv); arg != "" {
		fmt.Println(helperMain(arg))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperMain runs in a child started by asUser, as root in its own mount
// namespace. It mounts a /dev/net/tun of mode 0666 (hosts differ: Debian
// ships 0666, containers often 0600), drops to the unprivileged user and
// calls Open as that user would.
func helperMain(arg string) string {
	var verb, name string
	var id int
	if _, err := fmt.Sscan(arg, &verb, &name, &id); err != nil {
		return "bad helper argument: " + err.Error()
	}
	if err := unix.Mount("tmpfs", "/dev/net", "tmpfs", 0, "mode=0755"); err != nil {
		return "mount: " + err.Error()
	}
	if err := unix.Mknod("/dev/net/tun", unix.S_IFCHR|0o666, int(unix.Mkdev(10, 200))); err != nil {
		return "mknod: " + err.Error()
	}
	if err := os.Chmod("/dev/net/tun", 0o666); err != nil {
		return "chmod: " + err.Error()
	}
	if err := syscall.Setgroups(nil); err != nil {
		return "setgroups: " + err.Error()
	}
	if err := syscall.Setgid(id); err != nil {
		return "setgid: " + err.Error()
	}
	if err := syscall.Setuid(id); err != nil {
		return "setuid: " + err.Error()
	}
	mode := ModeOpen
	if verb == "create" {
		mode = ModeCreateNew
	}
	tp, err := Open(Config{Name: name, Mode: mode})
	if err != nil {
		return err.Error()
	}
	defer tp.Close()
	return fmt.Sprintf("ok created=%v persistent=%v", tp.Created(), tp.Persistent())
}

// TestNoAllocs: moving a valid frame allocates nothing, in either
// direction.
func TestNoAllocs(t *testing.T) {
	e := newEnv(t)
	tp := e.open(Config{Name: e.name(), Mode: ModeCreateNew})
	quiet(tp.Name())
	require.NoError(t, e.s.Origin().LinkUp(tp.Name()))
	f := frame(1514)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if _, err := tp.Write(f); err != nil {
			t.Fatal(err)
		}
	}), "Write")

	const runs = 50
	sendRaw := rawSender(t, tp.Index())
	for range runs + 10 { // AllocsPerRun adds a warm-up run
		sendRaw(f)
	}
	small, big := make([]byte, 2048), make([]byte, readBufLen)
	for _, buf := range [][]byte{small, big} {
		assert.Zero(t, testing.AllocsPerRun(runs/2, func() {
			if _, err := tp.Read(buf); err != nil {
				t.Fatal(err)
			}
		}), "Read into %d bytes", len(buf))
	}
}
