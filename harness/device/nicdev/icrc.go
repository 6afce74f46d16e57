package nicdev

import (
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/harness/engine"
)

// icrcGolden models the nic_icrc top: port 0 inserts the ICRC, port 1
// checks and strips it (golden/nic).
type icrcGolden struct {
	insert, check nic.ICRCCounters
	out           [1]engine.Output // returned by Accept: no allocation per frame
}

func (g *icrcGolden) Accept(port int, _, _ uint64, data []byte, bad bool) []engine.Output {
	switch port {
	case 0:
		g.out[0] = engine.Output{Port: 0, Data: nic.InsertICRC(data, &g.insert), Bad: bad}
	case 1:
		out, icrcBad := nic.CheckICRC(data, &g.check)
		g.out[0] = engine.Output{Port: 1, Data: out, Bad: bad || icrcBad}
	default:
		return nil
	}
	return g.out[:]
}

func (*icrcGolden) Advance(uint64) []engine.Output { return nil }

func (g *icrcGolden) Counters() map[string]uint64 {
	return map[string]uint64{
		"insert.roce":    g.insert.RoCE,
		"insert.other":   g.insert.Other,
		"check.roce":     g.check.RoCE,
		"check.other":    g.check.Other,
		"check.bad_icrc": g.check.BadICRC,
	}
}

func init() {
	engine.Register(engine.Top{
		Name: "nic_icrc", Module: "nic_icrc_top", In: 2, Out: 2,
		Golden: func(engine.GoldenEnv) engine.Golden { return &icrcGolden{} },
		// The counters' CSR map of sim/tops/nic_icrc_top.sv.
		Counters: map[string]uint32{
			"insert.roce": 0x00, "insert.other": 0x04,
			"check.roce": 0x10, "check.other": 0x14, "check.bad_icrc": 0x18,
		},
	})
}
