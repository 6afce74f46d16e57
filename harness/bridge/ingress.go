package bridge

import "encoding/binary"

// Frame sizes, without preamble and FCS (a TAP carries neither).
const (
	// MinFrame is the shortest Ethernet frame: a real MAC pads shorter
	// ones with zeros before they reach the wire, and the switch drops
	// anything shorter as a runt.
	MinFrame = 60
	// headerLen is the Ethernet header: two MACs and the EtherType.
	headerLen = 14
)

// Drop reasons, the keys of engine.TapStats.Drops (summary.json adds
// "tap_" in front).
const (
	DropRunt      = "runt"       // shorter than an Ethernet header: not a frame
	DropOversize  = "oversize"   // longer than the TAP's MTU plus header and one VLAN tag
	DropQueueFull = "queue_full" // the bounded queue was full: the host sent faster than the simulation ran
	DropReadError = "read_error" // the kernel refused a read
	DropNoInput   = "no_input"   // the tap has no input port (out only) to take it
	// Frames the model emitted that the TAP refused to hand to the host.
	DropToHostOversize = "to_host_oversize"
	DropToHostError    = "to_host_error"
)

// knownEtherTypes are what hosts normally send; anything else is
// counted as unknown (and still enters the model).
var knownEtherTypes = map[uint16]bool{
	0x0800: true, // IPv4
	0x0806: true, // ARP
	0x86DD: true, // IPv6
	0x8808: true, // MAC control: PAUSE, PFC
	0x88CC: true, // LLDP
}

// vlanTPIDs are tags whose EtherType follows four bytes later.
var vlanTPIDs = map[uint16]bool{0x8100: true, 0x88A8: true}

// ingress is what happens to a frame a host sent before it may queue.
type ingress struct {
	drop    string // a Drop* reason, or "" when the frame goes on
	padded  bool   // shorter than MinFrame: padded with zeros
	unknown bool   // an EtherType outside knownEtherTypes
}

// classify applies the bridge's rules to a frame read from a TAP whose
// longest frame is maxFrame.
func classify(f []byte, maxFrame int) ingress {
	switch {
	case len(f) < headerLen:
		return ingress{drop: DropRunt}
	case len(f) > maxFrame:
		return ingress{drop: DropOversize}
	}
	return ingress{padded: len(f) < MinFrame, unknown: !knownEtherType(f)}
}

// knownEtherType looks through up to two VLAN tags (802.1ad QinQ).
func knownEtherType(f []byte) bool {
	off := 12
	for range 3 {
		if off+2 > len(f) {
			return false
		}
		et := binary.BigEndian.Uint16(f[off:])
		if !vlanTPIDs[et] {
			// Below 0x0600 the field is an 802.3 length (LLC frames,
			// spanning tree): not an EtherType, so not one we know.
			return knownEtherTypes[et]
		}
		off += 4
	}
	return false
}

// padded returns a copy of f of at least MinFrame bytes, the tail zero,
// as a MAC pads a short frame. The copy is the bridge's to keep: the read
// buffer is reused. Copies are cut from slab, a block of slabSize bytes
// that is never written again where it was handed out (a full one is
// left to the garbage collector once its frames are dropped), so a frame
// costs neither an allocation nor clearing memory that is overwritten at
// once.
func padded(slab *[]byte, f []byte) []byte {
	n := max(len(f), MinFrame)
	if cap(*slab)-len(*slab) < n {
		*slab = make([]byte, 0, max(slabSize, n))
	}
	at := len(*slab)
	*slab = append(*slab, f...)
	for len(*slab) < at+n {
		*slab = append(*slab, 0)
	}
	return (*slab)[at : at+n : at+n]
}

// slabSize holds over a hundred full-size frames.
const slabSize = 256 << 10
