// Package pfc implements IEEE 802.1Qbb Priority-based Flow Control (PFC)
// frames, and the IEEE 802.3x PAUSE frame that shares their EtherType, as a
// gopacket layer for the golden reference model of the Ethernet switch.
//
// Both frames are MAC Control frames (EtherType 0x8808, IEEE 802.3 clause 31).
// They are seen on the AXI-Stream/TAP boundary without FCS, so a well-formed
// frame is exactly FrameLen (60) bytes:
//
//	offset size field
//	     0    6 destination MAC, 01:80:C2:00:00:01 (DstMAC)
//	     6    6 source MAC
//	    12    2 EtherType 0x8808 (EtherType)
//	    14    2 opcode: 0x0101 PFC (OpcodePFC), 0x0001 PAUSE (OpcodePause)
//	    16    2 PFC: priority-enable vector; PAUSE: pause time
//	    18   16 PFC: pause time of priorities 0..7 (PAUSE: zero pad)
//	    34   26 zero pad up to 60 bytes
//
// Pause times are in quanta of 512 bit times; a pause time of 0 means XON
// (resume now). QuantaToCycles converts quanta to clock cycles of a datapath
// that moves one DATA_WIDTH-bit beat per cycle.
//
// Importing the package registers LayerTypePFC (gopacket layer type number
// 1100) and maps EtherType 0x8808 to it, so that
//
//	gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
//
// yields Ethernet and PFC layers, and a gopacket.DecodingLayerParser holding
// a *layers.Ethernet and a *PFC decodes such frames without allocating.
//
// A single type, PFC, represents every MAC Control frame: its Opcode field
// tells PFC from PAUSE (or from an opcode this package does not know). For a
// PAUSE frame the one pause time is kept in Quanta[0]; PFC.Request gives the
// per-priority view a receiver acts on for either kind.
//
// Decoding is lenient (anything with complete opcode parameters decodes);
// conformance rules are checked separately by PFC.Validate and CheckFrame,
// which report every violation as a Problem.
package pfc
