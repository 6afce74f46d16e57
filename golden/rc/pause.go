package rc

import (
	"encoding/binary"
	"errors"

	"github.com/rocesim/cosim/golden/pfc"
)

// PauseCounters counts the MAC Control frames a node received and what
// they did to its transmitter (rtl/nic/README.md "PFC").
type PauseCounters struct {
	RxPFC        uint64 // PFC frames (opcode 0x0101 to 01:80:C2:00:00:01)
	RxPause      uint64 // 802.3x PAUSE frames (opcode 0x0001 to 01:80:C2:00:00:01)
	RxMACControl uint64 // other MAC Control frames, dropped
	// Named[p] counts the PFC frames that enabled priority p, and every
	// PAUSE (XON included).
	Named [pfc.NumPriorities]uint64
	// Cycles[p] counts the cycles at whose transmit decisions priority p
	// was paused. A pause is counted whole when its frame arrives, less
	// what a later frame cut off, so it is exact once the pause is over
	// (the NIC stays busy until then).
	Cycles [pfc.NumPriorities]uint64
}

// pauser is the node's per-priority pause state.
type pauser struct {
	// priority p is paused at the transmit decisions of cycles
	// from[p] .. until[p]-1, set by the last frame; and, in the cycle of
	// that frame's decision, by the timer it replaced: before prev[p].
	from, until, prev [pfc.NumPriorities]uint64
	counters          PauseCounters
	frame             pfc.PFC
}

// paused reports whether priority p is paused at the transmit decision of
// cycle now.
func (s *pauser) paused(p uint8, now uint64) bool {
	return now < s.prev[p] || now >= s.from[p] && now < s.until[p]
}

// resume is the first cycle whose decisions see p not paused, for cycles
// after the last frame's decision.
func (s *pauser) resume(p uint8) uint64 { return s.until[p] }

// macControl consumes a MAC Control frame (EtherType 0x8808, IEEE 802.3
// clause 31) decided at now. PFC (IEEE 802.1Qbb clause 36, 802.3 Annex 31D)
// and PAUSE (802.3 Annex 31B) to the reserved address 01:80:C2:00:00:01
// load the pause timers of the priorities they name (PAUSE: all eight);
// any other opcode or destination is counted and dropped, and a frame too
// short for its opcode's parameters is rx_malformed.
func (n *Node) macControl(frame []byte, now uint64) {
	s := &n.pause
	if err := s.frame.DecodeFromBytes(frame[14:], nil); err != nil {
		if errors.Is(err, pfc.ErrTruncated) {
			n.counters[RxMalformed]++
			return
		}
		panic(err) // DecodeFromBytes fails only for truncation
	}
	reserved := [6]byte(frame[0:6]) == [6]byte(pfc.DstMAC)
	switch {
	case reserved && s.frame.Opcode == pfc.OpcodePFC:
		s.counters.RxPFC++
	case reserved && s.frame.Opcode == pfc.OpcodePause:
		s.counters.RxPause++
	default:
		s.counters.RxMACControl++
		return
	}
	mask, quanta := s.frame.Request() // the reserved high byte of the vector is ignored (802.1Qbb 36.1.3.3)
	for p := range pfc.NumPriorities {
		if mask&(1<<p) == 0 {
			continue
		}
		s.counters.Named[p]++
		// The timer acts from the next cycle's decision, as the switch's
		// (rtl/switch/README.md "PFC", Pause): N = time * 512 / DATA_WIDTH.
		cycles := pfc.QuantaToCycles(quanta[p], n.cfg.PauseWidth())
		left := uint64(0)
		if s.until[p] > now+1 {
			left = s.until[p] - (now + 1) // the old pause's cycles after now, cut off
		}
		s.counters.Cycles[p] += cycles - left
		if s.from[p] <= now { // else a frame of this same cycle set it: prev stays
			s.prev[p] = min(s.until[p], now+1)
		}
		s.from[p], s.until[p] = now+1, now+1+cycles
	}
}

// isMACControl reports whether frame is a MAC Control frame: EtherType
// 0x8808 at offset 12 (never tagged: 802.3 clause 31.4).
func isMACControl(frame []byte) bool {
	return len(frame) >= 14 && binary.BigEndian.Uint16(frame[12:14]) == uint16(pfc.EtherType)
}

// PauseCounters returns the node's MAC Control counters.
func (n *Node) PauseCounters() PauseCounters { return n.pause.counters }

// Paused reports whether priority p is paused at the transmit decision of
// cycle now (now at or after the last frame's decision).
func (n *Node) Paused(p uint8, now uint64) bool { return n.pause.paused(p, now) }
