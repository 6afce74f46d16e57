// Devices: what the engine knows of an RTL top, registered by the
// device's own package, and what it asks of the top's golden model.

package engine

import (
	"fmt"
	"sort"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/scenario"
)

// Output is a frame a golden model predicts on one of its output ports.
type Output struct {
	Port int
	Data []byte
	Bad  bool
	// Sub names the port's sub-stream when the port is ordered only
	// within sub-streams (a NIC's completions, per QP): the golden model
	// then implements Substreams, which names the DUT's frames alike.
	Sub string
	// Cycle, when HasCycle, is the cycle the frame's first beat must leave
	// (a timed model that knows it exactly).
	Cycle    uint64
	HasCycle bool
}

// Golden predicts a model's outputs from exactly what its DUT accepted.
type Golden interface {
	// Accept feeds one input frame the DUT took on port, its first beat at
	// cycle first and its last at cycle last, and returns the frames the
	// DUT must emit because of it, if the model can tell at once (an
	// untimed model). The caller reads the slice before the next call and
	// keeps only the Outputs' data, so a model may return the same slice
	// every time.
	Accept(port int, first, last uint64, data []byte, bad bool) []Output
	// Advance says that every frame the DUT accepted before cycle until
	// has been given to Accept, and returns the frames the DUT must have
	// finished emitting before until (a timed model, whose outputs depend
	// on when things happen); untimed models return nil.
	Advance(until uint64) []Output
	// Counters returns the golden values of the DUT's statistics counters
	// by name; the names are keys of the top's CSR map.
	Counters() map[string]uint64
}

// Substreams is a golden model whose DUT orders an output port only within
// sub-streams: Sub names the stream of a frame the DUT emitted there ("" for
// ports ordered as a whole).
type Substreams interface {
	Sub(port int, data []byte) string
}

// Eventer is a golden model that counts events for functional coverage
// which no DUT counter tells apart (a completion's opcode and status, a
// PFC pause per priority). Events reports every event it declares, those
// that never happened as 0, so that a campaign can list the holes.
type Eventer interface {
	Events(add func(name string, count uint64))
}

// CSRGolden is a golden model whose DUT is configured over the CSR bus: it
// hears every configuration write with the cycle the write is on the bus.
type CSRGolden interface {
	CSRWrite(addr, data uint32, cycle uint64)
}

// configWrites turns a model's csr table into register writes, in name
// order, checking each name against the top's registers.
func configWrites(file string, m scenario.Model, top Top) ([]cosim.CSR, error) {
	names := make([]string, 0, len(m.CSR))
	for name := range m.CSR {
		names = append(names, name)
	}
	sort.Strings(names)
	var w []cosim.CSR
	for _, name := range names {
		addr, ok := top.Registers[name]
		if !ok {
			known := make([]string, 0, len(top.Registers))
			for k := range top.Registers {
				known = append(known, k)
			}
			sort.Strings(known)
			return nil, &ScenarioError{fmt.Errorf("%s: model %s: csr: top %s has no register %q (known: %v)", file, m.Name, top.Name, name, known)}
		}
		v := m.CSR[name]
		if v < 0 || v > 0xFFFFFFFF {
			return nil, &ScenarioError{fmt.Errorf("%s: model %s: csr.%s: %d does not fit 32 bits", file, m.Name, name, v)}
		}
		w = append(w, cosim.CSR{Addr: addr, Data: uint32(v)})
	}
	return w, nil
}

// MemGolden is a golden model whose DUT reaches host memory (a NIC): it
// hears every host memory write made from outside during a run (a
// Session's Access), with the cycle it is made at, before anything the
// DUT does from then on.
type MemGolden interface {
	MemWrite(addr uint64, data []byte, cycle uint64)
}

// GoldenEnv is what a golden model may need to know about its DUT's run:
// the backpressure its outputs see (cosim.SinkReady) and how it was built.
type GoldenEnv struct {
	Seed         uint64 // the model's backpressure seed (HELLO_ACK)
	SinkStallPct uint32
	DataWidth    int
	Params       map[string]int
	ClockHz      uint64 // the scenario's clock
}

// Top describes an RTL top the harness can run: its ports, its golden
// model and where its counters sit in the CSR space.
type Top struct {
	Name     string // what scenarios call it; sim/build.mk builds it as <Name>_<width>
	Module   string // the Verilog top module; the binary is V<Module>
	In, Out  int
	Golden   func(GoldenEnv) Golden
	Counters map[string]uint32 // counter name -> CSR address (32-bit counters)
	// Registers are the configuration registers a scenario may set by
	// name (scenario.Model.CSR).
	Registers map[string]uint32
	// ReadOnly are registers a test may read by name but not set
	// (identification, shape).
	ReadOnly map[string]uint32
	// MaxFrame is the longest frame its inputs take, in bytes (0: no
	// limit): workloads check their path MTU against it.
	MaxFrame int
	// MaxFrameRegister names the register (of Registers) that lowers
	// MaxFrame at run time, such as the switch's MTU: a scenario that sets
	// it lower is checked against its value.
	MaxFrameRegister string
	// Floods: it sends a frame out of several ports (a switch flooding an
	// unknown destination), so a loop of links through it would carry
	// copies round for ever; scenarios with such a loop are refused.
	Floods bool
}

var tops = map[string]Top{}

// Register makes an RTL top known to scenarios. Device packages
// (harness/device/...) call it from init; the engine knows no top itself.
func Register(t Top) { tops[t.Name] = t }

// LookupTop returns a registered top.
func LookupTop(name string) (Top, error) {
	t, ok := tops[name]
	if !ok {
		names := make([]string, 0, len(tops))
		for n := range tops {
			names = append(names, n)
		}
		sort.Strings(names)
		return Top{}, fmt.Errorf("unknown RTL top %q (known: %v)", name, names)
	}
	return t, nil
}
