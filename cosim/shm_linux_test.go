package cosim

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// shmPeer plays the model's end of the rings in these unit tests: it reads
// ring 0 and writes ring 1 of its own mapping of the memory file, as the
// model does, ringing over its own end of the socket pair.
type shmPeer struct {
	in, out shmRing
	sock    net.Conn
	bell    [64]byte
}

func newShmPair(t *testing.T) (*shmConn, *shmPeer) {
	t.Helper()
	mem, err := newShm("unit")
	require.NoError(t, err)
	peerMem, err := unix.Mmap(int(mem.file.Fd()), 0, len(mem.mem), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	require.NoError(t, err)
	mem.file.Close()
	a, b := unixPair(t)
	c, err := newShmConn(a, mem)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(); b.Close(); unix.Munmap(peerMem) })
	return c.(*shmConn), &shmPeer{in: newShmRing(peerMem, 0), out: newShmRing(peerMem, 1), sock: b}
}

// run runs the peer's side in a goroutine that the test joins before its
// clean-up unmaps the peer's memory: stop closes when the test ends, and
// the socket closes first so that a peer asleep on its doorbell wakes.
func (p *shmPeer) run(t *testing.T, f func(stop <-chan struct{}) error) <-chan error {
	stop, done, joined := make(chan struct{}), make(chan error, 1), make(chan struct{})
	go func() {
		defer close(joined)
		done <- f(stop)
	}()
	t.Cleanup(func() {
		close(stop)
		p.sock.Close()
		<-joined
	})
	return done
}

// unixPair is a connected pair of Unix stream sockets.
func unixPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("unix", t.TempDir()+"/s")
	require.NoError(t, err)
	defer l.Close()
	got := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		got <- c
	}()
	a, err := net.Dial("unix", l.Addr().String())
	require.NoError(t, err)
	return a, <-got
}

// readFull reads len(p) bytes as the model does: the ring, else a doorbell.
func (p *shmPeer) readFull(b []byte) error {
	for got := 0; got < len(b); {
		if n := p.in.read(b[got:]); n > 0 {
			got += n
			continue
		}
		atomic.StoreUint32(p.in.sleep, 1)
		if !p.in.empty() {
			atomic.StoreUint32(p.in.sleep, 0)
			continue
		}
		_, err := p.sock.Read(p.bell[:])
		atomic.StoreUint32(p.in.sleep, 0)
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *shmPeer) write(b []byte) error {
	for len(b) > 0 {
		n := p.out.write(b)
		b = b[n:]
		if n > 0 && atomic.SwapUint32(p.out.sleep, 0) == 1 {
			if _, err := p.sock.Write(doorbell); err != nil {
				return err
			}
		}
		if n == 0 {
			time.Sleep(10 * time.Microsecond)
		}
	}
	return nil
}

// Many small round trips, each side sleeping on an empty ring in turn: a
// lost doorbell would hang one of them past the deadline.
func TestShmConnRoundTripsLoseNoDoorbell(t *testing.T) {
	c, p := newShmPair(t)
	const trips = 20000
	done := p.run(t, func(<-chan struct{}) error {
		var b [13]byte
		for range trips {
			if err := p.readFull(b[:]); err != nil {
				return err
			}
			b[0]++ // the answer differs from the question
			if err := p.write(b[:]); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
	var q, a [13]byte
	for i := range trips {
		q[0], q[12] = byte(i), byte(i>>8)
		_, err := c.Write(q[:])
		require.NoError(t, err)
		for got := 0; got < len(a); {
			n, err := c.Read(a[got:])
			require.NoError(t, err, "trip %d", i)
			got += n
		}
		want := q
		want[0]++
		require.Equal(t, want, a, "trip %d", i)
	}
	require.NoError(t, <-done)
}

// A model that never stops sending still times out, as through a socket:
// the read deadline holds even while the ring always has bytes.
func TestShmConnReadDeadlineHoldsWhileBytesFlow(t *testing.T) {
	c, p := newShmPair(t)
	for p.out.write(make([]byte, 4096)) > 0 { // full before the first read
	}
	p.run(t, func(stop <-chan struct{}) error {
		b := make([]byte, 4096)
		for {
			select {
			case <-stop:
				return nil
			default:
			}
			p.out.write(b)
			if atomic.SwapUint32(p.out.sleep, 0) == 1 {
				p.sock.Write(doorbell)
			}
		}
	})
	require.NoError(t, c.SetReadDeadline(time.Now().Add(100*time.Millisecond)))
	buf := make([]byte, 16) // reads never empty the ring
	t0 := time.Now()
	var err error
	for err == nil && time.Since(t0) < 5*time.Second {
		_, err = c.Read(buf)
	}
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.Less(t, time.Since(t0), time.Second)
}

// A write kicked by a deadline in the past fails at once, and one waiting
// for room fails when the peer hangs up or the connection closes.
func TestShmConnWriteStops(t *testing.T) {
	c, p := newShmPair(t)
	require.NoError(t, c.SetWriteDeadline(time.Unix(1, 0)))
	_, err := c.Write([]byte{1})
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.NoError(t, c.SetWriteDeadline(time.Time{}))

	// Nobody reads: the ring fills, then the peer hangs up.
	go func() {
		time.Sleep(100 * time.Millisecond)
		p.sock.Close()
	}()
	t0 := time.Now()
	n, err := c.Write(make([]byte, 2*shmRingSize))
	require.Error(t, err)
	require.Equal(t, shmRingSize, n, "the ring takes what fits")
	require.Less(t, time.Since(t0), 2*time.Second)

	c2, _ := newShmPair(t)
	go func() {
		time.Sleep(100 * time.Millisecond)
		c2.Close()
	}()
	_, err = c2.Write(make([]byte, 2*shmRingSize))
	require.True(t, errors.Is(err, net.ErrClosed), "%v", err)
}
