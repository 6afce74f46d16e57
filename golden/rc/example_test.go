package rc_test

import (
	"fmt"
	"net/netip"

	"github.com/rocesim/cosim/golden/rc"
)

// Two nodes joined back to back: node a WRITEs 3000 bytes into a region of
// node b. The loop is all a driver needs: deliver frames, poll each node
// when its link is free, and jump to the next event.
func Example() {
	const clock = 156_250_000 // 64 bits per cycle: 10 Gb/s
	macA, macB := [6]byte{2, 0, 0, 0, 0, 0xa}, [6]byte{2, 0, 0, 0, 0, 0xb}
	ipA, ipB := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	memA, memB := rc.NewSparseMemory(), rc.NewSparseMemory()
	a, _ := rc.NewNode(rc.NodeConfig{MAC: macA, IP: ipA, ClockHz: clock}, memA)
	b, _ := rc.NewNode(rc.NodeConfig{MAC: macB, IP: ipB, ClockHz: clock}, memB)
	qp := rc.QPConfig{PMTU: 1024, Timeout: 14, RetryCnt: 7, RNRRetry: 7, Access: rc.AccessRemoteWrite}
	qa, qb := qp, qp
	qa.QPN, qa.RemoteQPN, qa.RemoteMAC, qa.RemoteIP, qa.UDPSrcPort = 0x11, 0x22, macB, ipB, 0xC011
	qb.QPN, qb.RemoteQPN, qb.RemoteMAC, qb.RemoteIP, qb.UDPSrcPort = 0x22, 0x11, macA, ipA, 0xC022
	must(a.AddQP(qa))
	must(b.AddQP(qb))
	must(b.RegisterMR(rc.MemoryRegion{Base: 0x10000, Length: 0x10000, RKey: 0x77, Access: rc.AccessRemoteWrite}))

	data := make([]byte, 3000)
	for i := range data {
		data[i] = byte(i)
	}
	memA.Write(0x1000, data)
	must(a.PostSend(0x11, rc.WorkRequest{ID: 1, Op: rc.OpWrite, LocalAddr: 0x1000, Length: 3000,
		RemoteAddr: 0x10000, RKey: 0x77}, 0))

	// A link of 100 cycles each way (no serialisation time, to keep it
	// short); frames are copied since Poll reuses buf.
	type inFlight struct {
		at    uint64
		to    *rc.Node
		frame []byte
	}
	var wire []inFlight
	buf := make([]byte, rc.MaxFrameLen)
	for now := uint64(0); now < 1_000_000; now++ {
		for len(wire) > 0 && wire[0].at <= now {
			wire[0].to.Receive(wire[0].frame, now)
			wire = wire[1:]
		}
		for _, n := range []*rc.Node{a, b} {
			if f, ok := n.Poll(now, buf); ok {
				peer := b
				if n == b {
					peer = a
				}
				wire = append(wire, inFlight{now + 100, peer, append([]byte(nil), f...)})
			}
		}
		for _, c := range a.TakeCompletions() {
			fmt.Println(c)
			got := make([]byte, 3000)
			memB.Read(0x10000, got)
			fmt.Println("bytes equal:", string(got) == string(data))
			fmt.Println("frames:", a.Counters()[rc.TxPackets], "sent,", b.Counters()[rc.RespACK], "ACK")
			return
		}
	}
	// Output:
	// cycle 202 qp 0x000011 send wr 1 WRITE SUCCESS 3000 B
	// bytes equal: true
	// frames: 3 sent, 1 ACK
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
