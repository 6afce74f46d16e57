package nic

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

var (
	tMACA, tMACB = [6]byte{2, 0, 0, 0, 0, 0xA}, [6]byte{2, 0, 0, 0, 0, 0xB}
	tIPA, tIPB   = netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
)

const (
	tQPA, tQPB = 0x11, 0x22
	tKey       = 0x77
	tRegion    = 0x100000 // B's registered region
	tClock     = 156_250_000
)

// tNode makes a node with one QP towards the other side's QP.
func tNode(t *testing.T, a bool, timeout uint8) (*rc.Node, *rc.SparseMemory) {
	t.Helper()
	mac, ip, peerMAC, peerIP, qpn, peer := tMACA, tIPA, tMACB, tIPB, roce.QPN(tQPA), roce.QPN(tQPB)
	if !a {
		mac, ip, peerMAC, peerIP, qpn, peer = tMACB, tIPB, tMACA, tIPA, tQPB, tQPA
	}
	mem := rc.NewSparseMemory()
	n, err := rc.NewNode(rc.NodeConfig{MAC: mac, IP: ip, ClockHz: tClock}, mem)
	require.NoError(t, err)
	require.NoError(t, n.AddQP(rc.QPConfig{QPN: qpn, RemoteQPN: peer, RemoteMAC: peerMAC, RemoteIP: peerIP,
		PMTU: 1024, Timeout: timeout, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1, UDPSrcPort: 0xC000 + uint16(qpn),
		Access: rc.AccessRemoteWrite | rc.AccessRemoteRead}))
	require.NoError(t, n.RegisterMR(rc.MemoryRegion{Base: tRegion, Length: 1 << 24, RKey: tKey,
		Access: rc.AccessRemoteWrite | rc.AccessRemoteRead}))
	return n, mem
}

func tTimed(t *testing.T, n *rc.Node, width int, dma uint64) *Timed {
	t.Helper()
	tm, err := NewTimed(n, TimedConfig{DataWidth: width, DMALatency: dma})
	require.NoError(t, err)
	return tm
}

func beatsOf(n, width int) uint64 { return uint64((n + width/8 - 1) / (width / 8)) }

// A WRITE of three packets on an idle NIC: posted at L+1, decided there and
// then back to back (beats of the previous frame later), each first beat
// DMA latency + 4 after its decision.
func TestTimedTransmitTiming(t *testing.T) {
	for _, width := range []int{64, 512} {
		n, mem := tNode(t, true, 14)
		mem.Write(0x1000, bytes.Repeat([]byte{0x5A}, 3000))
		tm := tTimed(t, n, width, 64)
		require.NoError(t, tm.Command(AppendSendCommand(nil, tQPA, rc.WorkRequest{ID: 1, Op: rc.OpWrite,
			LocalAddr: 0x1000, Length: 3000, RemoteAddr: tRegion, RKey: tKey}), 10))
		tm.Run(10_000)
		outs := tm.Outputs()
		require.Len(t, outs, 3, "three packets, no completion without an ACK")
		decide := uint64(11)
		for i, o := range outs {
			assert.Equal(t, PortNet, o.Port)
			assert.Equal(t, decide+64+TxExtra, o.Cycle, "width %d frame %d", width, i)
			decide += beatsOf(len(o.Data), width)
		}
	}
}

// The DMA port's 16 reads: at 512 bits, short WRITEs are decided every 3
// cycles until 16 reads are outstanding; the 17th waits for the first read
// to end (decided at 11, done at 11 + 64 + 1 = 76).
func TestTimedDMAReadSlots(t *testing.T) {
	n, mem := tNode(t, true, 14)
	mem.Write(0x1000, bytes.Repeat([]byte{1}, 64))
	tm := tTimed(t, n, 512, 64)
	for i := range 20 {
		require.NoError(t, tm.Command(AppendSendCommand(nil, tQPA, rc.WorkRequest{ID: uint64(i), Op: rc.OpWrite,
			LocalAddr: 0x1000, Length: 64, RemoteAddr: tRegion, RKey: tKey}), 10))
	}
	tm.Run(10_000)
	outs := tm.Outputs()
	require.Len(t, outs, 20)
	frame := beatsOf(len(outs[0].Data), 512)
	require.EqualValues(t, 3, frame, "a 64-byte WRITE ONLY is 138 bytes: 3 beats")
	for i := range 16 {
		assert.Equal(t, 11+uint64(i)*frame+68, outs[i].Cycle, "frame %d", i)
	}
	assert.Equal(t, uint64(76+68), outs[16].Cycle, "the 17th waits for a read slot")
	assert.Equal(t, uint64(79+68), outs[17].Cycle, "the 18th: the second read ended at 79")
}

// Host frames (in2) go before the node's frames; received frames that are
// not RoCEv2, and broadcasts for others, go to the host port at their
// decision cycle.
func TestTimedHostFrames(t *testing.T) {
	n, mem := tNode(t, true, 14)
	mem.Write(0x1000, bytes.Repeat([]byte{1}, 100))
	tm := tTimed(t, n, 64, 64)
	arp := append(bytes.Repeat([]byte{0xFF}, 6), tMACB[:]...)
	arp = append(arp, 0x08, 0x06)
	arp = append(arp, make([]byte, 46)...)
	require.NoError(t, tm.Command(AppendSendCommand(nil, tQPA, rc.WorkRequest{ID: 1, Op: rc.OpWrite,
		LocalAddr: 0x1000, Length: 100, RemoteAddr: tRegion, RKey: tKey}), 10))
	require.NoError(t, tm.HostFrame(arp, 10))
	require.NoError(t, tm.Receive(arp, 20))
	tm.Run(1000)
	outs := tm.Outputs()
	require.Len(t, outs, 3)
	assert.Equal(t, Out{Port: PortNet, Cycle: 11 + 68, Data: arp}, outs[0], "the host frame first")
	assert.Equal(t, PortNet, outs[1].Port)
	assert.Equal(t, 11+beatsOf(len(arp), 64)+68, outs[1].Cycle)
	assert.Equal(t, Out{Port: PortHost, Cycle: 22, Data: arp}, outs[2], "the received ARP, decided at L+2")
	assert.EqualValues(t, 1, n.Counters()[rc.RxNotRoCE])
}

// Commands the node refuses or that do not decode are counted, as the RTL
// counts cmd_rejected and cmd_bad.
func TestTimedCommandErrors(t *testing.T) {
	n, _ := tNode(t, true, 14)
	tm := tTimed(t, n, 64, 64)
	require.NoError(t, tm.Command(AppendSendCommand(nil, 0x99, rc.WorkRequest{Op: rc.OpSend}), 1))
	require.NoError(t, tm.Command(make([]byte, 64), 2))
	require.Error(t, tm.Command(make([]byte, 64), 1), "out of order")
	tm.Run(100)
	assert.Equal(t, 1, tm.Rejected())
	assert.Equal(t, 1, tm.Bad())
	assert.Error(t, tm.Receive(nil, 50), "decision cycle already simulated")
}

// Two timed NICs joined by a link of 200 cycles, driven window by window as
// the harness will: a random mix of SENDs, WRITEs and READs both ways, all
// complete and the memory matches. A lost frame is recovered by the
// timeout, which fires in its exact cycle even with the transmitter busy.
func TestTimedPair(t *testing.T) {
	const width, link, window = 64, 200, 100
	rng := rand.New(rand.NewPCG(1, 2))
	na, memA := tNode(t, true, 10)
	nb, memB := tNode(t, false, 10)
	a, b := tTimed(t, na, width, 64), tTimed(t, nb, width, 64)
	type msg struct {
		op     rc.Op
		n      int
		remote uint64
		data   []byte
	}
	var msgs []msg
	for i := range 60 {
		m := msg{op: []rc.Op{rc.OpSend, rc.OpWrite, rc.OpRead}[rng.IntN(3)], n: 1 + rng.IntN(5000)}
		m.remote = tRegion + uint64(i)*0x2000
		m.data = make([]byte, m.n)
		for k := range m.data {
			m.data[k] = byte(rng.Uint32())
		}
		local := 0x10_0000_0000 + uint64(i)*0x2000
		if m.op == rc.OpRead {
			memB.Write(m.remote, m.data)
		} else {
			memA.Write(local, m.data)
		}
		if m.op == rc.OpSend {
			require.NoError(t, b.Command(AppendRecvCommand(nil, tQPB, rc.RecvRequest{ID: uint64(i), Addr: m.remote, Length: 8192}), uint64(i)))
		}
		require.NoError(t, a.Command(AppendSendCommand(nil, tQPA, rc.WorkRequest{ID: uint64(i), Op: m.op,
			LocalAddr: local, Length: uint32(m.n), RemoteAddr: m.remote, RKey: tKey}), uint64(i)))
		msgs = append(msgs, m)
	}
	type flight struct {
		to   *Timed
		last uint64
		f    []byte
	}
	var wire []flight
	done := map[uint64]rc.Status{}
	lost := false
	for now := uint64(0); now < 5_000_000 && len(done) < len(msgs); now += window {
		// Deliver what arrives in this window, then run both sides.
		rest := wire[:0]
		for _, f := range wire {
			if f.last < now+window {
				require.NoError(t, f.to.Receive(f.f, f.last))
			} else {
				rest = append(rest, f)
			}
		}
		wire = rest
		for _, side := range []*Timed{a, b} {
			side.Run(now + window)
			peer := b
			if side == b {
				peer = a
			}
			for _, o := range side.Outputs() {
				switch o.Port {
				case PortNet:
					if !lost && side == a && o.Cycle > 2000 {
						lost = true // the first frame after 2000: its loss needs a timeout or NAK
						continue
					}
					wire = append(wire, flight{peer, o.Cycle + beatsOf(len(o.Data), width) - 1 + link, o.Data})
				case PortCompletion:
					if side == a {
						done[o.Completion.ID] = o.Completion.Status
					}
				}
			}
		}
	}
	require.Len(t, done, len(msgs), "every message completes")
	for i, m := range msgs {
		assert.Equal(t, rc.StatusSuccess, done[uint64(i)], "message %d", i)
		got := make([]byte, m.n)
		if m.op == rc.OpRead {
			memA.Read(0x10_0000_0000+uint64(i)*0x2000, got)
		} else {
			memB.Read(m.remote, got)
		}
		assert.True(t, bytes.Equal(m.data, got), "message %d (%v, %d bytes) landed", i, m.op, m.n)
	}
	c := na.Counters()
	assert.Positive(t, c[rc.TxRetransmits], "the lost frame was sent again")
	t.Logf("A: %v", c.Map())
}

// A host frame (in2) that waits for a later cycle does not hold back the
// node's frames: a WRITE of two packets posted at 10 is decided at 11 and,
// the transmitter free again, at 11 + beats of the first; the host frame
// whose last beat is at 200 goes after them (from 201). Each leaves at its
// decision cycle + DMA latency + 4. Found by the RTL
// (rtl/nic/tb/nic_model_test.go): Timed stepped only at the host frame's cycle.
func TestTimedHostFrameWaitsForItsCycle(t *testing.T) {
	n, _ := tNode(t, true, 0)
	tm := tTimed(t, n, 64, 64)
	require.NoError(t, tm.Command(AppendSendCommand(nil, tQPA, rc.WorkRequest{ID: 1, Op: rc.OpWrite,
		LocalAddr: 0x1000, Length: 2000, RemoteAddr: tRegion, RKey: tKey}), 10))
	host := bytes.Repeat([]byte{0xFF}, 60)
	require.NoError(t, tm.HostFrame(host, 200))
	tm.Run(1000)
	outs := tm.Outputs()
	require.Len(t, outs, 3)
	second := 11 + beatsOf(len(outs[0].Data), 64)
	assert.Equal(t, uint64(11+64+TxExtra), outs[0].Cycle, "the first packet, decided at the post")
	assert.Equal(t, second+64+TxExtra, outs[1].Cycle, "the second packet, decided when the transmitter is free")
	assert.Equal(t, max(201, second+beatsOf(len(outs[1].Data), 64))+64+TxExtra, outs[2].Cycle, "the host frame")
	assert.Equal(t, host, outs[2].Data)
}
