// Package switchdev registers the Ethernet switch (rtl/switch behind
// sim/tops/switch_top.sv) with the engine as the tops switch4 and switch8,
// and drives its golden model, golden/ethswitch: the cycle model of the RTL,
// which decides each frame the cycle after its last beat and emits frames
// as the windows pass, under the same output backpressure as the DUT, each
// with the cycle its first beat must leave.
package switchdev

import (
	"fmt"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/ethswitch"
	"github.com/rocesim/cosim/harness/engine"
)

// Switch8BufBytes is the BUF_BYTES sim/build.mk builds switch8 with, four
// times the default: the fabric's leaves and spine hold a lossless 4:1
// incast of path MTU 4096 frames (rtl/switch/README.md, buffer sizing).
const Switch8BufBytes = 131072

// switchGolden runs golden/ethswitch for one switch top, its sinks'
// backpressure drawn as the DUT's are (cosim.SinkReady).
type switchGolden struct {
	m     *ethswitch.Model
	outs  []ethswitch.Out
	out   []engine.Output
	ports int
	names [][ethswitch.NumQueues]string // Sample's, made once
}

func newSwitchGolden(ports int) func(engine.GoldenEnv) engine.Golden {
	return func(env engine.GoldenEnv) engine.Golden {
		cfg := ethswitch.DefaultConfig() // the parameters sim/build.mk builds with
		cfg.Ports, cfg.DataWidth = ports, env.DataWidth
		if ports == 8 {
			cfg.BufBytes = Switch8BufBytes
		}
		// A scenario that names a build of other sizes ([[model]] params)
		// gets a golden model of those sizes.
		for name, v := range map[string]*int{"MTU_MAX": &cfg.MTUMax, "SLOTS": &cfg.Slots, "BUF_BYTES": &cfg.BufBytes, "MAC_ENTRIES": &cfg.MACEntries} {
			if p, ok := env.Params[name]; ok {
				*v = p
			}
		}
		if env.SinkStallPct > 0 {
			cfg.Ready = func(port int, c uint64) bool {
				return cosim.SinkReady(env.Seed, env.SinkStallPct, uint32(port), c)
			}
		}
		m, err := ethswitch.New(cfg)
		if err != nil {
			panic(fmt.Sprintf("switch golden model: %v", err)) // the registry's own parameters
		}
		return &switchGolden{m: m, ports: ports}
	}
}

func (g *switchGolden) Accept(port int, _, last uint64, data []byte, bad bool) []engine.Output {
	if err := g.m.Input(port, data, bad, last); err != nil {
		panic(fmt.Sprintf("switch golden model: %v", err)) // the engine feeds accepts in order
	}
	return nil
}

func (g *switchGolden) Advance(until uint64) []engine.Output {
	g.m.Run(until)
	g.outs = g.m.AppendOutputs(g.outs[:0])
	g.out = g.out[:0]
	for _, o := range g.outs {
		// The model is cycle-exact (switch_timing_test.go holds it to the
		// RTL): the scoreboard checks the cycle each frame leaves too.
		g.out = append(g.out, engine.Output{Port: o.Port, Data: o.Frame, Cycle: o.First, HasCycle: true})
	}
	return g.out
}

func (g *switchGolden) CSRWrite(addr, data uint32, cycle uint64) {
	if err := g.m.CSRWrite(addr, data, cycle); err != nil {
		panic(fmt.Sprintf("switch golden model: %v", err))
	}
}

func (g *switchGolden) Counters() map[string]uint64 { return g.m.CounterMap() }

// Sample reports each egress queue's bytes (qocc, rtl/switch/README.md)
// for the report (engine.Sampler).
func (g *switchGolden) Sample(add func(string, float64)) {
	if g.names == nil {
		g.names = make([][ethswitch.NumQueues]string, g.ports)
		for e := range g.names {
			for q := range ethswitch.NumQueues {
				g.names[e][q] = fmt.Sprintf("queue_bytes.out%d.prio%d", e, q)
			}
		}
	}
	for e := range g.names {
		for q, n := range g.names[e] {
			add(n, float64(g.m.QueueOccupancy(e, q)))
		}
	}
}

// switchRegisters names the configuration registers of rtl/switch/README.md.
func switchRegisters() map[string]uint32 {
	r := map[string]uint32{
		"CTRL": ethswitch.AddrCtrl, "MTU": ethswitch.AddrMTU, "AGE_CYCLES": ethswitch.AddrAgeCycles,
		"DEFAULT_PRIO": ethswitch.AddrDefaultPrio, "PFC_XOFF": ethswitch.AddrPFCXoff, "PFC_XON": ethswitch.AddrPFCXon,
		"PFC_QUANTA": ethswitch.AddrPFCQuanta, "PFC_REFRESH": ethswitch.AddrPFCRefresh,
		"SWITCH_MAC_LO": ethswitch.AddrSwitchMACLo, "SWITCH_MAC_HI": ethswitch.AddrSwitchMACHi,
		"RED_LFSR": ethswitch.AddrREDLFSR,
	}
	for k := range 8 {
		r[fmt.Sprintf("DSCP_MAP%d", k)] = ethswitch.AddrDSCPMap + uint32(4*k)
		r[fmt.Sprintf("ECN_K%d", k)] = ethswitch.AddrECNK + uint32(4*k)
		r[fmt.Sprintf("QUANTUM%d", k)] = ethswitch.AddrQuantum + uint32(4*k)
		r[fmt.Sprintf("ECN_KMAX%d", k)] = ethswitch.AddrECNKMax + uint32(4*k)
		r[fmt.Sprintf("ECN_PMAX%d", k)] = ethswitch.AddrECNPMax + uint32(4*k)
	}
	return r
}

func init() {
	for _, ports := range []int{4, 8} {
		engine.Register(engine.Top{
			Name: fmt.Sprintf("switch%d", ports), Module: "switch_top", In: ports, Out: ports,
			Golden:    newSwitchGolden(ports),
			Counters:  ethswitch.CounterAddrs(ports),
			Registers: switchRegisters(),
			ReadOnly:  map[string]uint32{"ID": ethswitch.AddrID, "SHAPE": ethswitch.AddrShape},
			MaxFrame:  ethswitch.DefaultConfig().MTUMax, // the MTU_MAX sim/build.mk builds with
			// a frame above the MTU CSR is dropped as oversize
			MaxFrameRegister: "MTU",
			Floods:           true, // no spanning tree in the RTL
		})
	}
}

// Figures reports, per egress port and priority, the cycles a received
// PFC frame paused it and the most bytes it held queued (engine.Figurer),
// leaving out the zeros.
func (g *switchGolden) Figures(add func(string, uint64)) {
	for e := range g.ports {
		for q := range ethswitch.NumQueues {
			if v := g.m.PausedCycles(e, q); v > 0 {
				add(fmt.Sprintf("pause_cycles.out%d.prio%d", e, q), v)
			}
			if v := g.m.MaxQueueOccupancy(e, q); v > 0 {
				add(fmt.Sprintf("max_queue_bytes.out%d.prio%d", e, q), v)
			}
		}
	}
}

// Events reports the PFC state changes per port and priority for
// functional coverage (engine.Eventer).
func (g *switchGolden) Events(add func(string, uint64)) { g.m.Events(add) }
