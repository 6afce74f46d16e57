//go:build linux

package tap

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/internal/fifo"
	"github.com/rocesim/cosim/harness/netns"
)

// TestOffloadCarriesTCPBetweenBridgedTAPs checks split and join against
// the kernel's own TCP: two namespaced hosts on TAPs with offload, bridged
// by a loop that reads one frame at a time and writes what has gathered
// with WriteFrames, exchange 8 MB through an echo. The data must come back
// intact, each host must have handed over super-packets and received
// joined ones, and neither kernel may count a bad checksum.
func TestOffloadCarriesTCPBetweenBridgedTAPs(t *testing.T) {
	p := newEnv(t).bridge(true, batchPump)
	a, b, ta, tb := p.a, p.b, p.ta, p.tb

	var ln net.Listener
	require.NoError(t, b.Do(func() (err error) { ln, err = net.Listen("tcp4", "192.0.2.2:0"); return err }))
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	var c net.Conn
	require.NoError(t, a.Do(func() (err error) { c, err = net.DialTimeout("tcp4", ln.Addr().String(), 10*time.Second); return err }))
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(time.Minute)))
	data := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	go func() {
		c.Write(data)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "echo: %d bytes back of %d, or different", len(got), len(data))

	for _, tp := range []*TAP{ta, tb} {
		st := tp.Stats()
		assert.Positive(t, st.Offload.Split, "%s handed over super-packets: %+v", tp.Name(), st.Offload)
		assert.Greater(t, st.Offload.Segments, st.Offload.Split, "%s", tp.Name())
		assert.Positive(t, st.Offload.Joined, "%s got joined writes: %+v", tp.Name(), st.Offload)
		assert.Greater(t, st.Offload.JoinedFrames, st.Offload.Joined, "%s", tp.Name())
		assert.Zero(t, st.Offload.Malformed+st.Read.Dropped()+st.Write.Dropped(), "%s: %+v", tp.Name(), st)
	}
	for _, ns := range []*netns.Namespace{a, b} {
		assert.Zero(t, tcpCsumErrors(t, ns), "%s counted TCP checksum errors", ns.Name())
	}
}

// batchPump copies frames from src to dst as the bridge's ports do: one
// goroutine reads, another writes every frame waiting in one WriteFrames.
func batchPump(wg *sync.WaitGroup, errs chan<- error, dst, src *TAP) {
	frames := make(chan []byte, 1024)
	wg.Go(func() {
		defer close(frames)
		errs <- readAll(src, func(f []byte) error {
			frames <- append([]byte(nil), f...)
			return nil
		})
	})
	wg.Go(func() {
		batch, werrs := [][]byte{}, make([]error, 64)
		for f := range frames {
			batch = fifo.Gather(append(batch[:0], f), frames, 64)
			dst.WriteFrames(batch, werrs)
			for _, err := range werrs[:len(batch)] {
				var fe *FrameError
				if err != nil && !errors.As(err, &fe) && !errors.Is(err, os.ErrClosed) {
					errs <- err
					return
				}
			}
		}
	})
}

// tcpCsumErrors reads InCsumErrors from the Tcp lines of the namespace's
// /proc/net/snmp (through thread-self: /proc/self/net would show the
// process's main thread's namespace).
func tcpCsumErrors(t *testing.T, ns *netns.Namespace) int {
	var snmp []byte
	require.NoError(t, ns.Do(func() (err error) { snmp, err = os.ReadFile("/proc/thread-self/net/snmp"); return err }))
	var names []string
	for _, line := range strings.Split(string(snmp), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "Tcp:" {
			continue
		}
		if names == nil {
			names = fields
			continue
		}
		for i, name := range names {
			if name == "InCsumErrors" && i < len(fields) {
				n, err := strconv.Atoi(fields[i])
				require.NoError(t, err)
				return n
			}
		}
	}
	t.Fatalf("no Tcp InCsumErrors in /proc/net/snmp:\n%s", snmp)
	return 0
}
