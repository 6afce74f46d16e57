// Package fifodev registers the axis_fifo top (rtl/common/axis_fifo.sv
// behind sim/tops/axis_fifo_top.sv) with the engine: one input, one output,
// and frames leave as they came. The engine's own tests run on it.
package fifodev

import "github.com/rocesim/cosim/harness/engine"

// golden models the FIFO: every accepted frame comes out unchanged.
type golden struct {
	out [1]engine.Output // returned by Accept: no allocation per frame
}

func (g *golden) Accept(port int, _, _ uint64, data []byte, bad bool) []engine.Output {
	g.out[0] = engine.Output{Port: port, Data: data, Bad: bad}
	return g.out[:]
}

func (*golden) Advance(uint64) []engine.Output { return nil }

func (*golden) Counters() map[string]uint64 { return nil }

func init() {
	engine.Register(engine.Top{
		Name: "axis_fifo", Module: "axis_fifo_top", In: 1, Out: 1,
		Golden: func(engine.GoldenEnv) engine.Golden { return &golden{} },
	})
}
