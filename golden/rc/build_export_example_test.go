package rc_test

import (
	"fmt"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// One SEND ONLY frame of 5 payload bytes, built from its description as a
// node would send it: 3 pad bytes, PadCnt 3 in the BTH, and the ICRC last
// (the same value as Python's zlib.crc32 over the masked bytes).
func ExampleBuildFrame() {
	mem := rc.NewSparseMemory()
	mem.Write(0x1003, []byte("hello"))
	p := rc.Packet{
		DstMAC: [6]byte{2, 0, 0, 0, 0, 0xb}, SrcMAC: [6]byte{2, 0, 0, 0, 0, 0xa},
		SrcIP: [4]byte{10, 0, 0, 1}, DstIP: [4]byte{10, 0, 0, 2}, UDPSrcPort: 0xC011, TOS: 26<<2 | 2,
		DestQP: 0x22, OpCode: roce.RCSendOnly, PSN: 0xFFFFFF, AckReq: true,
		Addr: 0x1003, PayloadLen: 5,
	}
	f := rc.BuildFrame(nil, &p, mem)
	fmt.Println(len(f), "bytes")
	fmt.Printf("BTH     % x\n", f[42:54])
	fmt.Printf("payload % x\n", f[54:62])
	fmt.Printf("ICRC    % x\n", f[62:])
	// Output:
	// 66 bytes
	// BTH     04 30 ff ff 00 00 00 22 80 ff ff ff
	// payload 68 65 6c 6c 6f 00 00 00
	// ICRC    06 3c 6e 4e
}
