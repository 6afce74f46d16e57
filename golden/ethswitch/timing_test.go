package ethswitch

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestTiming measures each constant of timing.go on the model, so that a
// change of either shows up here.
func TestTiming(t *testing.T) {
	const last = 10
	var dec Decision
	cfg := DefaultConfig()
	cfg.OnDecide = func(d Decision) { dec = d }
	m, _ := New(cfg)
	m.CSRWrite(AddrCtrl, CtrlPFCTx|CtrlPFCRx, 0)
	m.CSRWrite(AddrPFCXoff, 63, 0)
	m.Input(0, plain(Broadcast, macA, 64), false, last)
	m.Run(100)
	outs := m.Outputs()
	data, xoff := outs[1], outs[0] // port 0 (the XOFF) sorts first at Last 20
	if !xoff.PFC() || data.Port != 1 {
		t.Fatalf("outputs %v", outs)
	}
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"DecideDelay", dec.Cycle - last, DecideDelay},
		{"QueueVisibleDelay", data.Picked - dec.Cycle, QueueVisibleDelay},
		{"PickToFirstBeat", data.First - data.Picked, PickToFirstBeat},
		{"Latency", data.First - last, Latency},
		{"PFCSendDelay", xoff.Picked - dec.Cycle, PFCSendDelay}, // generated at the end of D
		{"Latency value", Latency, 3},
	} {
		if c.got != c.want {
			t.Errorf("%s: measured %d, constant %d", c.name, c.got, c.want)
		}
	}

	// ReleaseDelay: occupancy and the slot come back one cycle after the
	// last beat (z = 20).
	m, _ = New(DefaultConfig())
	m.Input(0, plain(Broadcast, macA, 64), false, last)
	m.Run(20)
	occ, free := m.Occupancy(1), m.FreeSlots()
	m.Run(20 + ReleaseDelay)
	if slots := DefaultConfig().Slots; occ != 64 || free != slots-1 || m.Occupancy(1) != 0 || m.FreeSlots() != slots {
		t.Errorf("ReleaseDelay: occ %d -> %d, free %d -> %d", occ, m.Occupancy(1), free, m.FreeSlots())
	}

	// PauseStartDelay: a PFC frame decided at D pauses picks D+1..D+N.
	m, _ = New(DefaultConfig())
	m.CSRWrite(AddrCtrl, CtrlPFCRx, 0)
	m.Input(2, pfcIn(macC, 1<<4, [8]uint16{4: 3}), false, last)
	m.Run(100)
	if got, want := m.PausedUntil(2, 4), uint64(last+DecideDelay)+PauseCycles(3, 64)+PauseStartDelay; got != want {
		t.Errorf("PauseStartDelay: paused until %d, want %d", got, want)
	}

	// CSRWriteDelay: see TestRules/csr_write_timing and TestCSRTiming.
	if CSRWriteDelay != 1 || CSRReadLatency != 1 || LandingSlots != 2 {
		t.Error("CSR and landing slot constants changed: update the README and the RTL header")
	}
}

// The RTL's header states the same timing constants as timing.go.
func TestTimingMatchesRTLHeader(t *testing.T) {
	src, err := os.ReadFile("../../rtl/switch/eth_switch.sv")
	if err != nil {
		t.Fatal(err)
	}
	header := string(src)
	for _, want := range []string{
		fmt.Sprintf("LATENCY = %d", Latency),
		fmt.Sprintf("D = L+%d", DecideDelay),
		fmt.Sprintf("N = time[p] * %d / DATA_WIDTH", PauseQuantumBits),
		fmt.Sprintf("picks of D+%d .. D+N", PauseStartDelay),
		fmt.Sprintf("take effect for cycle t+%d", CSRWriteDelay),
	} {
		if !strings.Contains(header, want) {
			t.Errorf("rtl/switch/eth_switch.sv header does not say %q", want)
		}
	}
}
