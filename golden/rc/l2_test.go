package rc

import (
	"encoding/binary"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
)

// pauseNode is a node at 64 bits with two QPs, of priorities 1 (with the
// CNPs) and 2, each with a long SEND posted at cycle 0.
func pauseNode(t *testing.T) *Node {
	t.Helper()
	n, err := NewNode(NodeConfig{MAC: [6]byte{2, 0, 0, 0, 0, 1}, IP: netip.AddrFrom4([4]byte{10, 0, 0, 1}),
		ClockHz: testClock, DataWidth: 64, CNPPriority: 1}, NewSparseMemory())
	require.NoError(t, err)
	for k := range 2 {
		require.NoError(t, n.AddQP(QPConfig{QPN: roce.QPN(0x10 + k), RemoteQPN: roce.QPN(0x20 + k),
			RemoteMAC: [6]byte{2, 0, 0, 0, 0, 2}, RemoteIP: netip.AddrFrom4([4]byte{10, 0, 0, 2}), PMTU: 256,
			UDPSrcPort: 0xC000, Priority: uint8(1 + k), DSCP: uint8(10 * k)}))
		require.NoError(t, n.PostSend(roce.QPN(0x10+k), WorkRequest{Op: OpSend, Length: 64 << 10}, 0))
	}
	return n
}

func pfcFrame(t *testing.T, enable uint8, quanta map[int]uint16) []byte {
	t.Helper()
	var q [pfc.NumPriorities]uint16
	for p, v := range quanta {
		q[p] = v
	}
	f, err := pfc.New(net.HardwareAddr{2, 0, 0, 0, 0, 2}, enable, q)
	require.NoError(t, err)
	return f
}

// pollQP polls at now and returns the destination QP of the frame, 0 for none.
func pollQP(t *testing.T, n *Node, now uint64) roce.QPN {
	t.Helper()
	f, ok := n.Poll(now, make([]byte, MaxFrameLen))
	if !ok {
		return 0
	}
	var fr roce.Frame
	require.NoError(t, fr.Decode(f))
	return fr.BTH.DestQP
}

// A PFC frame decided at D pauses its priorities at the transmit decisions
// of D+1 .. D+N, N = time * 512 / 64 at 64 bits; the QP of another priority
// goes on; a paused QP keeps its work and wakes when the pause ends
// (NextEvent); a later frame replaces the timer, XON (time 0) at once.
func TestPauseRule(t *testing.T) {
	n := pauseNode(t)
	n.Receive(pfcFrame(t, 1<<1, map[int]uint16{1: 2}), 100) // N = 16: paused 101..116
	require.False(t, n.Paused(1, 100), "the frame acts from the next decision")
	require.True(t, n.Paused(1, 101))
	require.True(t, n.Paused(1, 116))
	require.False(t, n.Paused(1, 117))
	require.False(t, n.Paused(2, 101), "another priority")

	// QP 0x10 (priority 1) is skipped while paused, QP 0x11 sends
	for c := uint64(101); c <= 116; c += 4 {
		require.Equal(t, roce.QPN(0x21), pollQP(t, n, c), "cycle %d", c)
	}
	require.Equal(t, roce.QPN(0x20), pollQP(t, n, 117), "resumed at D+N+1")

	// with only the paused QP's work left, NextEvent is the pause's end
	n = pauseNode(t)
	for c := uint64(1); pollQP(t, n, c) != 0; c++ {
	}
	require.NoError(t, n.PostSend(0x10, WorkRequest{Op: OpSend, Length: 64}, 1000))
	n.Receive(pfcFrame(t, 1<<1, map[int]uint16{1: 3}), 1000) // paused 1001..1024
	e, ok := n.NextEvent()
	require.True(t, ok)
	require.Equal(t, uint64(1025), e, "wakes as the pause ends")
	require.Equal(t, roce.QPN(0), pollQP(t, n, 1024))
	require.Equal(t, roce.QPN(0x20), pollQP(t, n, 1025))

	// a frame replaces the timer from its next decision; XON resumes at once
	n.Receive(pfcFrame(t, 1<<1, map[int]uint16{1: 100}), 2000) // 2001..2800
	n.Receive(pfcFrame(t, 1<<1, nil), 2010)                    // XON
	require.True(t, n.Paused(1, 2010), "the old timer still holds the XON's own cycle")
	require.False(t, n.Paused(1, 2011))

	c := n.PauseCounters()
	require.Equal(t, uint64(3), c.RxPFC)
	require.Equal(t, uint64(24+10), c.Cycles[1], "paused cycles, the cut-short pause counted to its cut")
	require.Equal(t, uint64(3), c.Named[1])
}

// An 802.3x PAUSE pauses all eight priorities (the CNPs' too); MAC Control
// frames of another opcode or to another address are counted and dropped,
// short ones are rx_malformed; none is rx_not_roce (the host never sees
// them).
func TestPauseFrames(t *testing.T) {
	n := pauseNode(t)
	p, err := pfc.NewPause(net.HardwareAddr{2, 0, 0, 0, 0, 2}, 1) // 8 cycles
	require.NoError(t, err)
	n.Receive(p, 50)
	for prio := range uint8(8) {
		require.True(t, n.Paused(prio, 58), "priority %d", prio)
		require.False(t, n.Paused(prio, 59), "priority %d", prio)
	}
	require.Equal(t, roce.QPN(0), pollQP(t, n, 51))

	other := append([]byte(nil), p...)
	other[15] = 2 // opcode 0x0002
	n.Receive(other, 60)
	unicast := pfcFrame(t, 0xFF, map[int]uint16{1: 9})
	copy(unicast[0:6], []byte{2, 0, 0, 0, 0, 1})
	n.Receive(unicast, 61)
	n.Receive(pfcFrame(t, 0xFF, nil)[:33], 62) // one byte short of the times
	n.Receive(p[:15], 63)                      // no opcode
	require.False(t, n.Paused(1, 64), "none of them pauses")

	c := n.PauseCounters()
	require.Equal(t, PauseCounters{RxPause: 1, RxMACControl: 2, Named: [8]uint64{1, 1, 1, 1, 1, 1, 1, 1},
		Cycles: [8]uint64{8, 8, 8, 8, 8, 8, 8, 8}}, c)
	all := n.Counters()
	require.Equal(t, uint64(2), all[RxMalformed])
	require.Zero(t, all[RxNotRoCE])
}

// A QP's DSCP replaces the node's in its packets' TOS (and the IPv4
// checksum covers it).
func TestQPDSCP(t *testing.T) {
	n, err := NewNode(NodeConfig{MAC: [6]byte{2, 0, 0, 0, 0, 1}, IP: netip.AddrFrom4([4]byte{10, 0, 0, 1}),
		ClockHz: testClock, DSCP: 26}, NewSparseMemory())
	require.NoError(t, err)
	for k, dscp := range []uint8{0, 46} {
		require.NoError(t, n.AddQP(QPConfig{QPN: roce.QPN(0x10 + k), RemoteQPN: 0x20, RemoteIP: netip.AddrFrom4([4]byte{10, 0, 0, 2}),
			PMTU: 256, UDPSrcPort: 0xC000, DSCP: dscp}))
		require.NoError(t, n.PostSend(roce.QPN(0x10+k), WorkRequest{Op: OpSend, Length: 8}, 0))
	}
	for _, want := range []uint8{26, 46} {
		f, ok := n.Poll(1, make([]byte, MaxFrameLen))
		require.True(t, ok)
		require.Equal(t, want<<2|ecnECT0, f[15], "TOS")
		var fr roce.Frame
		require.NoError(t, fr.Decode(f))
	}
	require.Error(t, (&QPConfig{PMTU: 256, RemoteIP: netip.AddrFrom4([4]byte{1, 2, 3, 4}), Priority: 8}).Validate())
}

// A QP with QPConfig.VLAN tags its frames (IEEE 802.1Q): TPID 0x8100, PCP
// its priority, DEI 0, its VID; its CNPs carry the CNP priority. The IPv4
// checksum and the ICRC are those of the shifted headers, and a node takes
// the tagged frames as any other.
func TestQPVLANTag(t *testing.T) {
	mk := func(mac, peer byte) *Node {
		n, err := NewNode(NodeConfig{MAC: [6]byte{2, 0, 0, 0, 0, mac}, IP: netip.AddrFrom4([4]byte{10, 0, 0, mac}),
			ClockHz: testClock, CNPPriority: 6}, NewSparseMemory())
		require.NoError(t, err)
		require.NoError(t, n.AddQP(QPConfig{QPN: roce.QPN(mac), RemoteQPN: roce.QPN(peer), RemoteMAC: [6]byte{2, 0, 0, 0, 0, peer},
			RemoteIP: netip.AddrFrom4([4]byte{10, 0, 0, peer}), PMTU: 256, UDPSrcPort: 0xC000, Priority: 5,
			VLAN: true, VID: 0x123}))
		return n
	}
	a, b := mk(1, 2), mk(2, 1)
	require.NoError(t, b.PostRecv(2, RecvRequest{Addr: 0, Length: 64}, 0))
	require.NoError(t, a.PostSend(1, WorkRequest{Op: OpSend, Length: 8}, 0))
	f, ok := a.Poll(1, make([]byte, MaxFrameLen))
	require.True(t, ok)
	require.Equal(t, []byte{0x81, 0x00, 5<<5 | 0x1, 0x23, 0x08, 0x00}, f[12:18], "tag and EtherType")
	var fr roce.Frame
	require.NoError(t, fr.Decode(f))
	require.True(t, fr.VLAN)
	ok, _, _, err := roce.VerifyICRC(fr.IPPacket(f))
	require.NoError(t, err)
	require.True(t, ok, "ICRC")
	b.Receive(f, 10)
	c, _ := b.QPCounters(2)
	require.Equal(t, uint64(1), c[RxPackets], "taken")

	// a CE-marked packet makes a CNP, tagged with the CNP priority
	require.NoError(t, a.PostSend(1, WorkRequest{Op: OpSend, Length: 8}, 20))
	f, ok = a.Poll(21, make([]byte, MaxFrameLen))
	require.True(t, ok)
	f[19] |= ecnCE
	f[28], f[29] = 0, 0
	binary.BigEndian.PutUint16(f[28:], checksum.Checksum(f[18:38]))
	b.Receive(f, 30)
	cnp, ok := b.Poll(31, make([]byte, MaxFrameLen))
	require.True(t, ok)
	require.NoError(t, fr.Decode(cnp))
	require.Equal(t, roce.CNPOpCode, fr.BTH.OpCode)
	require.Equal(t, uint16(6<<13|0x123), fr.TCI, "the CNP's PCP")
}
