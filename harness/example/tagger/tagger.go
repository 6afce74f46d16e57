// Package tagger is the golden model of rtl/vlan_tagger.sv, registered
// with cosim's engine as the top "vlan_tagger": a scenario's [[model]] with
// top = "vlan_tagger", or testbench.Model(t, "vlan_tagger_64"), runs the
// Verilated tagger with this model checking every frame it emits.
// Importing the package registers it.
package tagger

import (
	"encoding/binary"
	"slices"

	"github.com/rocesim/cosim/harness/engine"
)

// The register map of rtl/vlan_tagger.sv.
const (
	AddrID     = 0x00
	AddrTag    = 0x04
	AddrCtrl   = 0x08
	AddrTagged = 0x10
	AddrPassed = 0x14
	AddrPort1  = 0x18

	ID         = 0x564c4154 // "VLAT"
	ResetTag   = 0x0001     // VID 1, the default PVID (IEEE 802.1Q-2018, 12.10.1.1)
	CtrlEnable = 1
)

// TPID is the C-VLAN tag's protocol identifier (IEEE 802.1Q-2018, 9.5,
// Table 9-1).
const TPID = 0x8100

// TCI is a tag's control information (IEEE 802.1Q-2018, 9.6): priority
// code point, drop eligible indicator and VLAN identifier, as the TAG
// register holds it.
func TCI(pcp, dei, vid uint16) uint16 { return pcp<<13 | (dei&1)<<12 | vid&0xfff }

// Tag is what port 0 does to a frame under a TCI: a frame with an
// EtherType (14 bytes or more) that is not already tagged gets the tag
// after its source address; any other frame is returned as it is. tagged
// says which.
func Tag(frame []byte, tci uint16) (out []byte, tagged bool) {
	if len(frame) < 14 || binary.BigEndian.Uint16(frame[12:]) == TPID {
		return frame, false
	}
	out = slices.Grow(slices.Clone(frame[:12]), len(frame)+4)
	out = binary.BigEndian.AppendUint16(out, TPID)
	out = binary.BigEndian.AppendUint16(out, tci)
	return append(out, frame[12:]...), true
}

// csrWrite is a register write the golden model heard, kept until the
// first frame it applies to.
type csrWrite struct {
	addr, data uint32
	cycle      uint64
}

// golden is the tagger's model. It is untimed: the scoreboard checks the
// frames and their order per port, not their cycles.
type golden struct {
	tag, ctrl             uint32
	pending               []csrWrite
	tagged, passed, port1 uint64
	out                   [1]engine.Output
}

func newGolden(engine.GoldenEnv) engine.Golden { return &golden{tag: ResetTag, ctrl: CtrlEnable} }

// CSRWrite hears a configuration write on the bus in cycle cycle. The RTL
// reads TAG and CTRL when a frame's first beat is taken, so the write
// applies to frames whose first beat comes after cycle.
func (g *golden) CSRWrite(addr, data uint32, cycle uint64) {
	g.pending = append(g.pending, csrWrite{addr, data, cycle})
}

func (g *golden) Accept(port int, first, _ uint64, data []byte, bad bool) []engine.Output {
	if port == 1 {
		g.port1++
		g.out[0] = engine.Output{Port: 1, Data: data, Bad: bad}
		return g.out[:]
	}
	for len(g.pending) > 0 && g.pending[0].cycle < first {
		switch w := g.pending[0]; w.addr {
		case AddrTag:
			g.tag = w.data & 0xffff
		case AddrCtrl:
			g.ctrl = w.data & CtrlEnable
		}
		g.pending = g.pending[1:]
	}
	out, tagged := data, false
	if g.ctrl&CtrlEnable != 0 {
		out, tagged = Tag(data, uint16(g.tag))
	}
	if tagged {
		g.tagged++
	} else {
		g.passed++
	}
	g.out[0] = engine.Output{Port: 0, Data: out, Bad: bad}
	return g.out[:]
}

func (*golden) Advance(uint64) []engine.Output { return nil }

// Counters are the golden values of the RTL's counters, compared when a
// run ends.
func (g *golden) Counters() map[string]uint64 {
	return map[string]uint64{"tagged": g.tagged, "passed": g.passed, "port1_frames": g.port1}
}

func init() {
	engine.Register(engine.Top{
		Name: "vlan_tagger", Module: "vlan_tagger", In: 2, Out: 2,
		Golden:    newGolden,
		Counters:  map[string]uint32{"tagged": AddrTagged, "passed": AddrPassed, "port1_frames": AddrPort1},
		Registers: map[string]uint32{"TAG": AddrTag, "CTRL": AddrCtrl},
		ReadOnly:  map[string]uint32{"ID": AddrID},
	})
}
