package framegen

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/pfc"
)

// L2Spec describes an Ethernet frame for the switch: addresses, an
// optional 802.1Q tag, an optional IPv4 header (DSCP and ECN are what the
// switch reads), and the total length in bytes (no FCS). Lengths below 60
// make runts, on purpose; the payload after the headers is drawn from the
// generator.
type L2Spec struct {
	Dst, Src [6]byte
	VLAN     bool
	PCP      uint8  // 3 bits
	VID      uint16 // 12 bits
	IPv4     bool
	DSCP     uint8 // 6 bits
	ECN      uint8 // 2 bits
	Len      int   // total frame length; at least 14, or 18 with a tag
}

// EtherTypeExperimental is the EtherType of frames that are neither
// IPv4 nor tagged (IEEE 802 local experimental 1).
const EtherTypeExperimental = 0x88B5

// BuildL2 builds the frame s describes. An IPv4 header that does not fit
// the length is left out; its checksum is right and its total length
// covers the rest of the frame.
func BuildL2(rng *rand.Rand, s L2Spec) []byte {
	f := make([]byte, s.Len)
	WriteL2(rng, s, f)
	return f
}

// WriteL2 builds the frame s describes into f, which must be s.Len bytes
// long, as BuildL2 does: for a caller that cuts its frames from larger
// blocks.
func WriteL2(rng *rand.Rand, s L2Spec, f []byte) {
	if len(f) != s.Len {
		panic("framegen: WriteL2 into a slice of the wrong length")
	}
	fillRandom(rng, f)
	copy(f[0:6], s.Dst[:])
	copy(f[6:12], s.Src[:])
	off := 12
	if s.VLAN && s.Len >= 18 {
		binary.BigEndian.PutUint16(f[12:], 0x8100)
		binary.BigEndian.PutUint16(f[14:], uint16(s.PCP&7)<<13|s.VID&0x0FFF)
		off = 16
	}
	if off+2 > s.Len {
		return
	}
	if !s.IPv4 || off+2+20 > s.Len {
		binary.BigEndian.PutUint16(f[off:], EtherTypeExperimental)
		return
	}
	binary.BigEndian.PutUint16(f[off:], 0x0800)
	ip := f[off+2 : off+2+20]
	ip[0] = 0x45
	ip[1] = s.DSCP<<2 | s.ECN&3
	binary.BigEndian.PutUint16(ip[2:], uint16(s.Len-off-2))
	binary.BigEndian.PutUint16(ip[6:], 0x4000) // DF
	ip[8] = 64
	ip[9] = 253 // experimental protocol (RFC 3692)
	ip[10], ip[11] = 0, 0
	binary.BigEndian.PutUint16(ip[10:], checksum.Checksum(ip))
}

// PFCMaxQuanta bounds the pause times WritePFC draws: at most 8184 cycles
// at 64 bits, so that random pauses slow a campaign without stopping it.
const PFCMaxQuanta = 1023

// WritePFC builds into f, pfc.FrameLen bytes long, an 802.1Qbb PFC frame
// from src (IEEE 802.1Q-2018 clause 36; the layout is golden/pfc's): a
// random class-enable vector and random pause times of 0 to PFCMaxQuanta
// quanta, a quarter of them 0 (resume), zero padding.
func WritePFC(rng *rand.Rand, src [6]byte, f []byte) {
	if len(f) != pfc.FrameLen {
		panic("framegen: WritePFC into a slice of the wrong length")
	}
	clear(f)
	copy(f[0:6], pfc.DstMAC)
	copy(f[6:12], src[:])
	binary.BigEndian.PutUint16(f[12:], uint16(pfc.EtherType))
	binary.BigEndian.PutUint16(f[14:], uint16(pfc.OpcodePFC))
	r := rng.Uint64()
	f[17] = byte(r) // class-enable vector; the reserved high byte stays 0
	for p := range pfc.NumPriorities {
		t := uint16(rng.IntN(PFCMaxQuanta + 1))
		if r>>(8+2*p)&3 == 0 {
			t = 0
		}
		binary.BigEndian.PutUint16(f[18+2*p:], t)
	}
}

// fillRandom fills b from rng, eight bytes a draw: a frame's random bytes
// are most of what generating a campaign's stimulus costs.
func fillRandom(rng *rand.Rand, b []byte) {
	for ; len(b) >= 8; b = b[8:] {
		binary.LittleEndian.PutUint64(b, rng.Uint64())
	}
	if len(b) > 0 {
		v := rng.Uint64()
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}
