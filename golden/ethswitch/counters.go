package ethswitch

import (
	"fmt"
	"strconv"
)

// Counter is the number n of a per-port statistics counter: its CSR address
// is CounterAddr(port, n) = 0x1000 + 0x100*port + 4*n (README "CSR map").
// The switch's counters are 32 bits and wrap; the model keeps 64 bits and
// the CSR view returns the low 32.
//
// When they count (README): rx_frames, rx_bytes, the drops runt to
// filtered, no_slot, rx_pfc and rx_mac_control at the decision cycle D on
// the ingress port (every frame that ends counts in rx_frames and
// rx_bytes); drop_tail[p] and ecn_marked[p] at D on the egress port, for
// the frame's priority p; tx_frames, tx_bytes and tx_pfc at the cycle the
// last beat is taken, on the egress port (PFC frames the switch sends count
// in all three).
type Counter uint8

const (
	RxFrames     Counter = 0  // frames whose last beat came in (all of them)
	RxBytes      Counter = 1  // their bytes
	TxFrames     Counter = 2  // frames sent, PFC frames included
	TxBytes      Counter = 3  // their bytes
	DropRunt     Counter = 4  // shorter than MinFrameLen
	DropOversize Counter = 5  // longer than the MTU in force
	DropBad      Counter = 6  // tuser[0] on the last beat
	DropNoSlot   Counter = 7  // no pool slot at the decision
	DropFiltered Counter = 8  // unicast to a live entry of the ingress port
	RxPFC        Counter = 9  // PFC frames received (consumed)
	RxMACControl Counter = 10 // other MAC Control frames received (consumed)
	TxPFC        Counter = 11 // PFC frames sent
	dropTail0    Counter = 16 // drop_tail[p] = 16+p, counted on the egress port
	ecnMarked0   Counter = 24 // ecn_marked[p] = 24+p, counted on the egress port

	// NumCounterSlots is the number of counter numbers per port (0..31);
	// 12..15 are unused.
	NumCounterSlots = 32
)

// DropTail is the counter of copies of priority prio dropped on an egress
// port because its buffer was full.
func DropTail(prio int) Counter { return dropTail0 + Counter(prio&7) }

// ECNMarked is the counter of copies of priority prio marked CE on an
// egress port.
func ECNMarked(prio int) Counter { return ecnMarked0 + Counter(prio&7) }

var counterNames = [NumCounterSlots]string{
	"rx_frames", "rx_bytes", "tx_frames", "tx_bytes",
	"drop_runt", "drop_oversize", "drop_bad", "drop_no_slot", "drop_filtered",
	"rx_pfc", "rx_mac_control", "tx_pfc", "", "", "", "",
	"drop_tail[0]", "drop_tail[1]", "drop_tail[2]", "drop_tail[3]",
	"drop_tail[4]", "drop_tail[5]", "drop_tail[6]", "drop_tail[7]",
	"ecn_marked[0]", "ecn_marked[1]", "ecn_marked[2]", "ecn_marked[3]",
	"ecn_marked[4]", "ecn_marked[5]", "ecn_marked[6]", "ecn_marked[7]",
}

// Valid reports whether c is a counter of the map (0..11, 16..31).
func (c Counter) Valid() bool { return c < NumCounterSlots && counterNames[c] != "" }

// String returns the README's name, e.g. "rx_frames" or "drop_tail[3]".
func (c Counter) String() string {
	if c.Valid() {
		return counterNames[c]
	}
	return "Counter(" + strconv.Itoa(int(c)) + ")"
}

// AllCounters lists every valid counter in CSR order.
func AllCounters() []Counter {
	out := make([]Counter, 0, 28)
	for c := Counter(0); c < NumCounterSlots; c++ {
		if c.Valid() {
			out = append(out, c)
		}
	}
	return out
}

// PortCounters are the counters of one port.
type PortCounters struct {
	RxFrames, RxBytes, TxFrames, TxBytes        uint64
	DropRunt, DropOversize, DropBad, DropNoSlot uint64
	DropFiltered, RxPFC, RxMACControl, TxPFC    uint64
	DropTail                                    [NumQueues]uint64 // as egress, by priority
	ECNMarked                                   [NumQueues]uint64 // as egress, by priority
}

// Counter returns the value of counter c of port (0 for an invalid counter).
func (m *Model) Counter(port int, c Counter) uint64 {
	if port < 0 || port >= m.cfg.Ports || !c.Valid() {
		return 0
	}
	return m.cnt[port][c]
}

// Counters returns the counters of port as a struct.
func (m *Model) Counters(port int) PortCounters {
	c := &m.cnt[port]
	pc := PortCounters{
		RxFrames: c[RxFrames], RxBytes: c[RxBytes], TxFrames: c[TxFrames], TxBytes: c[TxBytes],
		DropRunt: c[DropRunt], DropOversize: c[DropOversize], DropBad: c[DropBad],
		DropNoSlot: c[DropNoSlot], DropFiltered: c[DropFiltered],
		RxPFC: c[RxPFC], RxMACControl: c[RxMACControl], TxPFC: c[TxPFC],
	}
	for p := range NumQueues {
		pc.DropTail[p] = c[DropTail(p)]
		pc.ECNMarked[p] = c[ECNMarked(p)]
	}
	return pc
}

// CounterName is the name of counter c of port in CounterMap and
// CounterAddrs: "port<i>.<counter>", e.g. "port2.drop_tail[3]".
func CounterName(port int, c Counter) string {
	return "port" + strconv.Itoa(port) + "." + c.String()
}

// CounterMap returns every counter of every port by CounterName (64-bit
// values; the CSRs hold the low 32 bits).
func (m *Model) CounterMap() map[string]uint64 {
	out := make(map[string]uint64, m.cfg.Ports*28)
	for i := range m.cfg.Ports {
		for c := Counter(0); c < NumCounterSlots; c++ {
			if c.Valid() {
				out[CounterName(i, c)] = m.cnt[i][c]
			}
		}
	}
	return out
}

// CounterAddrs returns the CSR address of every counter of a switch with
// ports ports, by CounterName (for a harness that reads them back).
func CounterAddrs(ports int) map[string]uint32 {
	out := make(map[string]uint32, ports*28)
	for i := range ports {
		for c := Counter(0); c < NumCounterSlots; c++ {
			if c.Valid() {
				out[CounterName(i, c)] = CounterAddr(i, c)
			}
		}
	}
	return out
}

// PFC state changes per port and priority, for functional coverage: what
// the counters (rx_pfc, tx_pfc per port) do not tell apart.
const (
	pfcXOFF    = iota // ingress (i,p) went over PFC_XOFF: a pause sent
	pfcXON            // back to PFC_XON or below: a zero pause sent
	pfcRefresh        // still over: the pause sent again at PFC_REFRESH
	pfcPaused         // a PFC frame received paused egress queue p
	pfcResumed        // one with a zero time resumed it
	numPFCEvents
)

var pfcEventNames = [numPFCEvents]string{"pfc_xoff", "pfc_xon", "pfc_refresh", "pfc_paused", "pfc_resumed"}

// Events reports the PFC state changes of every port and priority,
// "port2.pfc_xoff.prio3", every one, those that never happened as 0 (so
// that a campaign can list the holes). A PFC frame received pauses or
// resumes only with CTRL.pfc_rx set; the others come with CTRL.pfc_tx
// (README "PFC").
func (m *Model) Events(add func(name string, count uint64)) {
	for i := range m.pfcEv {
		for p := range NumQueues {
			for e, name := range pfcEventNames {
				add(fmt.Sprintf("port%d.%s.prio%d", i, name, p), m.pfcEv[i][p][e])
			}
		}
	}
}
