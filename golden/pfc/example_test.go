package pfc_test

import (
	"fmt"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/pfc"
)

// Build a PFC frame that pauses priority 3 for 0x100 quanta and resumes
// priority 5 (XON).
func ExampleNew() {
	src := net.HardwareAddr{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	frame, err := pfc.New(src, 1<<3|1<<5, [8]uint16{3: 0x100, 5: 0})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(frame))
	fmt.Printf("% x\n", frame[:14])
	fmt.Printf("% x\n", frame[14:34])
	// Output:
	// 60
	// 01 80 c2 00 00 01 02 00 00 00 00 01 88 08
	// 01 01 00 28 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00
}

// Decode a frame with gopacket.NewPacket and check it.
func Example_decode() {
	src := net.HardwareAddr{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	frame, _ := pfc.New(src, 0x09, [8]uint16{0: 0xffff, 3: 10})

	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	for _, l := range pkt.Layers() {
		fmt.Println(l.LayerType())
	}
	eth := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	p := pkt.Layer(pfc.LayerTypePFC).(*pfc.PFC)
	fmt.Println(eth.EthernetType, p.Opcode, p.EnableVector, p.Quanta)
	fmt.Println("problems:", len(pfc.CheckFrame(eth, p)))
	mask, quanta := p.Request()
	fmt.Printf("mask %#02x, priority 3: %d quanta = %d cycles at 64 bits\n",
		mask, quanta[3], pfc.QuantaToCycles(quanta[3], 64))
	// Output:
	// Ethernet
	// PFC
	// MACControl PFC P0|P3 [65535 0 0 10 0 0 0 0]
	// problems: 0
	// mask 0x09, priority 3: 10 quanta = 80 cycles at 64 bits
}

// A PAUSE frame decodes into the same type, with its pause time in Quanta[0];
// Request spreads it over all priorities.
func ExampleNewPause() {
	frame, _ := pfc.NewPause(net.HardwareAddr{0x02, 0, 0, 0, 0, 1}, 7)
	var eth layers.Ethernet
	var p pfc.PFC
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &p)
	decoded := make([]gopacket.LayerType, 0, 2)
	if err := parser.DecodeLayers(frame, &decoded); err != nil {
		panic(err)
	}
	fmt.Println(decoded, p.Opcode, p.Quanta[0])
	fmt.Println(p.Request())
	// Output:
	// [Ethernet PFC] PAUSE 7
	// 255 [7 7 7 7 7 7 7 7]
}

// Report every rule a malformed frame breaks.
func ExampleCheckFrame() {
	frame, _ := pfc.New(net.HardwareAddr{0x02, 0, 0, 0, 0, 1}, 0x01, [8]uint16{100})
	frame[0] = 0x02  // unicast destination
	frame[16] = 0x01 // reserved byte of the enable vector
	frame[50] = 0xff // pad
	pkt := gopacket.NewPacket(frame[:59], layers.LayerTypeEthernet, gopacket.Default)
	eth := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	p := pkt.Layer(pfc.LayerTypePFC).(*pfc.PFC)
	for _, problem := range pfc.CheckFrame(eth, p) {
		fmt.Println(problem.Code)
	}
	// Output:
	// dst-mac
	// enable-reserved
	// pad-nonzero
	// short-frame
}

func ExampleQuantaToCycles() {
	for _, width := range []int{64, 512, 1024} {
		fmt.Println(width, pfc.QuantaToCycles(3, width))
	}
	// Output:
	// 64 24
	// 512 3
	// 1024 2
}
