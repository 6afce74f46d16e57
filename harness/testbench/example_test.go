package testbench_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/rc"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// A bench of one model, the AXI-Stream FIFO: a frame in, the same frame
// out. In a test, tb.Model(t, ...) takes the *testing.T; an example has
// none, so it runs under Standalone.
func Example() {
	tb.Standalone("Example", os.Stdout, func(t tb.T) {
		b := tb.Model(t, "axis_fifo_64")
		frame := make([]byte, 64)
		copy(frame, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5})
		sent := b.Send("dut.in0", frame)
		got := b.Expect("dut.out0", tb.Exact(frame), tb.Within(100))
		fmt.Printf("in: cycles %d..%d; out: cycles %d..%d\n", sent.First(), sent.Last(), got.Cycle, got.LastCycle)
		s := b.Finish() // the golden model saw the same
		fmt.Println("matched by golden:", s.Matched)
	})
	// Output:
	// in: cycles 1..8; out: cycles 4..11
	// matched by golden: 1
}

// Frames from gopacket layers, and an expectation that leaves fields out:
// TTL and the IPv4 checksum, which must still be right for the frame that
// comes (recomputed).
func ExampleIgnoring() {
	tb.Standalone("ExampleIgnoring", os.Stdout, func(t tb.T) {
		b := tb.Model(t, "axis_fifo_64")
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP,
			SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
		udp := &layers.UDP{SrcPort: 1024, DstPort: 9}
		udp.SetNetworkLayerForChecksum(ip)
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
			EthernetType: layers.EthernetTypeIPv4}
		frame := b.Packet(eth, ip, udp, gopacket.Payload("hello"))
		b.Send("dut.in0", frame)

		ip.TTL = 63 // what a router would send: another TTL, another checksum
		routed := b.Packet(eth, ip, udp, gopacket.Payload("hello"))
		got := b.Expect("dut.out0", tb.Ignoring(routed, tb.IPv4TTL, tb.IPv4Checksum))
		fmt.Printf("%d bytes, TTL %d\n", len(got.Data), got.Data[22])
	})
	// Output:
	// 60 bytes, TTL 64
}

// Registers by name, a flood out of every other port of the 4-port
// switch at the latency of its README (3 cycles from the last beat in),
// and a port that stays quiet.
func ExampleBench_ExpectEach() {
	tb.Standalone("ExampleBench_ExpectEach", os.Stdout, func(t tb.T) {
		b := tb.Model(t, "switch4_64", tb.Name("sw"))
		fmt.Printf("ID %#x\n", b.ReadCSR("sw.ID"))
		frame := make([]byte, 100)
		copy(frame, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x0a, 0x88, 0xb5})
		s := b.Send("sw.in0", frame)
		b.RunUntil(s.Taken, 100)
		for _, got := range b.ExpectEach([]string{"sw.out1", "sw.out2", "sw.out3"}, tb.Exact(frame), tb.LeavesAt(s.Last()+3)) {
			fmt.Printf("%s at cycle %d\n", got.Port, got.Cycle)
		}
		b.ExpectNone("sw.out0", tb.Any(), 1000)
		fmt.Println("rx_frames:", b.ReadCSR("sw.port0.rx_frames"))
	})
	// Output:
	// ID 0x53570001
	// sw.out1 at cycle 24
	// sw.out2 at cycle 24
	// sw.out3 at cycle 24
	// rx_frames: 1
}

// Count the frames that match among those that came (PTF's
// count_matched_packets).
func ExampleBench_Count() {
	tb.Standalone("ExampleBench_Count", os.Stdout, func(t tb.T) {
		b := tb.Model(t, "axis_fifo_64")
		for i := range 5 {
			f := make([]byte, 64)
			f[0] = byte(i % 2)
			b.Send("dut.in0", f)
		}
		even := tb.Where("first byte 0", func(f []byte) bool { return f[0] == 0 })
		fmt.Println(b.Count("dut.out0", even, 200), "of", len(b.Out("dut.out0")))
	})
	// Output:
	// 3 of 5
}

// Counters by name once the bench has finished: Finish read every counter
// of the switch over its CSR bus and found each equal to the golden
// model's; Counter gives their values.
func ExampleBench_Counter() {
	tb.Standalone("ExampleBench_Counter", os.Stdout, func(t tb.T) {
		b := tb.Model(t, "switch4_64", tb.Name("sw"))
		frame := make([]byte, 100)
		copy(frame, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x0a, 0x88, 0xb5})
		b.Send("sw.in0", frame)
		b.Send("sw.in0", frame)
		b.Finish()
		fmt.Println("in0:", b.Counter("sw.port0.rx_frames"), "frames,", b.Counter("sw.port0.rx_bytes"), "bytes")
		fmt.Println("out3:", b.Counter("sw.port3.tx_frames"), "frames")
	})
	// Output:
	// in0: 2 frames, 200 bytes
	// out3: 2 frames
}

// Be the host of two RTL NICs joined by links (the twoNICs scenario of
// nic_test.go): a WRITE from nic0 into nic1's region, its completion, and
// then the checks against the golden models: nic1's host memory, every
// QP's state, and after Finish a counter by name.
func ExampleNIC_CheckMemory() {
	tb.Standalone("ExampleNIC_CheckMemory", os.Stdout, func(t tb.T) {
		b := tb.FromTOML(t, twoNICs)
		rng := rand.New(rand.NewPCG(1, 2))
		s0, mem0 := nicSetup(0, rng)
		s1, _ := nicSetup(1, rng)
		nic0, nic1 := b.SetUpNIC("nic0", s0), b.SetUpNIC("nic1", s1)
		nic0.PostSend(qpn[0], rc.WorkRequest{ID: 1, Op: rc.OpWrite, LocalAddr: region, Length: 2000, RemoteAddr: region + 0x8000, RKey: rkey[1]})
		c := nic0.ExpectCompletion(rc.Completion{QPN: qpn[0], ID: 1, Op: rc.OpWrite, Bytes: 2000}, tb.Within(20_000))
		fmt.Println("completed:", c.Status)
		b.RunUntilIdle(10_000)
		nic1.CheckMemory(region, regionLen) // all of it: golden's, byte for byte
		nic1.CheckQPStates()
		fmt.Println("written:", bytes.Equal(nic1.ReadMemory(region+0x8000, 2000), mem0[:2000]))
		b.Finish()
		fmt.Println("nic0 sent", b.Counter("nic0.qp0.tx_packets"), "packets; nic1 ACKed", b.Counter("nic1.qp0.resp_ack"))
	})
	// Output:
	// completed: SUCCESS
	// written: true
	// nic0 sent 2 packets; nic1 ACKed 1
}
