package behaviour_test

import (
	"fmt"

	"github.com/rocesim/cosim/golden/rc/behaviour"
	"github.com/rocesim/cosim/golden/roce"
)

// A frame of a case, as the node under test would send it to the peer.
func ExampleBuild() {
	ack := behaviour.Frame{Op: roce.RCAcknowledge, PSN: 0x200, Syn: roce.SyndromeACKUnlimited, MSN: 1}
	fmt.Println(behaviour.Summary(behaviour.Build(behaviour.NodeEnd, behaviour.PeerEnd, ack)))
	// Output: RC_ACKNOWLEDGE psn=0x000200 qp=0x000022 aeth(ACK(credit=31) msn=1) payload 0 bytes, crc32 00000000, tos 0x6a, 62 bytes
}

// A runner walks each case's steps in order.
func ExampleCases() {
	c := behaviour.Cases()[0]
	fmt.Println(c.Name)
	for _, s := range c.Steps {
		fmt.Printf("  cycle %d: %v, %d frames out\n", s.At, s.Kind, len(s.Out))
	}
	// Output:
	// resp_send_ack
	//   cycle 0: recv, 0 frames out
	//   cycle 0: recv, 0 frames out
	//   cycle 10: in, 0 frames out
	//   cycle 10: expect, 1 frames out
	//   cycle 20: in, 0 frames out
	//   cycle 20: expect, 0 frames out
}

// DiffFrames names the fields that differ.
func ExampleDiffFrames() {
	want := behaviour.Build(behaviour.NodeEnd, behaviour.PeerEnd,
		behaviour.Frame{Op: roce.RCAcknowledge, PSN: 0x200, Syn: roce.SyndromeACKUnlimited, MSN: 1})
	got := behaviour.Build(behaviour.NodeEnd, behaviour.PeerEnd,
		behaviour.Frame{Op: roce.RCAcknowledge, PSN: 0x201, Syn: roce.SyndromeACKUnlimited, MSN: 1})
	fmt.Println(behaviour.DiffFrames("example", [][]byte{got}, [][]byte{want}))
	// Output:
	// example: sent 1 frames, want 1
	//   frame 0 differs:
	//     got  RC_ACKNOWLEDGE psn=0x000201 qp=0x000022 aeth(ACK(credit=31) msn=1) payload 0 bytes, crc32 00000000, tos 0x6a, 62 bytes
	//     want RC_ACKNOWLEDGE psn=0x000200 qp=0x000022 aeth(ACK(credit=31) msn=1) payload 0 bytes, crc32 00000000, tos 0x6a, 62 bytes
	//       bth.psn        got 0x000201, want 0x000200
	//       icrc           got 0xb515e47b, want 0x8875cdcb
	//       first differing byte at offset 53
}
