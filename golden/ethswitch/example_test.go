package ethswitch_test

import (
	"fmt"

	"github.com/rocesim/cosim/golden/ethswitch"
)

// frame returns a 64-byte Ethernet frame from src to dst.
func frame(dst, src ethswitch.MAC) []byte {
	f := make([]byte, 64)
	copy(f[0:6], dst[:])
	copy(f[6:12], src[:])
	f[12], f[13] = 0x88, 0xB5
	return f
}

// Host A on port 0 broadcasts, which floods and teaches the switch where A
// is; host B on port 2 answers A, which goes to port 0 only. Each frame's
// first beat leaves Latency cycles after its last beat came in.
func Example() {
	sw, err := ethswitch.New(ethswitch.DefaultConfig()) // 4 ports, 64-bit beats
	if err != nil {
		panic(err)
	}
	a := ethswitch.MAC{0x02, 0, 0, 0, 0, 0xA}
	b := ethswitch.MAC{0x02, 0, 0, 0, 0, 0xB}
	sw.Input(0, frame(ethswitch.Broadcast, a), false, 10) // last beat in at cycle 10
	sw.Input(2, frame(a, b), false, 30)
	sw.Run(100)
	for _, o := range sw.Outputs() {
		fmt.Printf("port %d: from port %d, beats %d..%d\n", o.Port, o.Ingress, o.First, o.Last)
	}
	fmt.Println("rx_frames of port 0:", sw.CSRRead(ethswitch.CounterAddr(0, ethswitch.RxFrames)))
	fmt.Println("idle:", sw.Idle())
	// Output:
	// port 1: from port 0, beats 13..20
	// port 2: from port 0, beats 13..20
	// port 3: from port 0, beats 13..20
	// port 0: from port 2, beats 33..40
	// rx_frames of port 0: 1
	// idle: true
}

// The switch's PFC frames: XOFF for priority 3 with the reset PFC_QUANTA.
func ExamplePFCFrame() {
	f := ethswitch.PFCFrame(ethswitch.MAC{0x02, 0, 0, 0, 0, 1}, 3, 0xFFFF)
	fmt.Printf("% x\n", f[:26])
	fmt.Println(len(f), "bytes")
	// Output:
	// 01 80 c2 00 00 01 02 00 00 00 00 01 88 08 01 01 00 08 00 00 00 00 00 00 ff ff
	// 60 bytes
}

func ExampleMACIndex() {
	fmt.Println(ethswitch.MACIndex(ethswitch.MAC{0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC}, 64))
	// Output:
	// 46
}
