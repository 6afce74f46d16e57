package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
)

// NIC parameters sim/build.mk builds the nic models with (rtl/nic/README.md
// "Parameters"); a scenario's params may restate them, not change them.
var nicParams = map[string]int{"QPS": 16, "MRS": 16, "SQ_DEPTH": 32, "RQ_DEPTH": 32, "MAX_READS": 4}

// nicDMALatency is the DMA read latency the models run with: the engine
// starts them without --dma-read-latency (sim/README.md "DMA port").
const nicDMALatency = 64

// nicSetup is what a NIC's golden model and its DUT are configured with:
// the node, its memory regions, its QPs and the host memory's first
// contents. An [[rdma]] workload makes it (rdma.go).
type nicSetup struct {
	Node rc.NodeConfig
	MRs  []rc.MemoryRegion // MR slot m holds MRs[m]
	QPs  []rc.QPConfig     // QP slot q holds QPs[q]
	Init []memBlock        // written before traffic, to the DUT (MEM_WRITE) and to golden
}

type memBlock struct {
	Addr uint64
	Data []byte
}

// nicGolden runs golden/rc's Node with the NIC RTL's timing (nic.Timed):
// every frame on out0 is predicted with the cycle its first beat leaves,
// completion records per QP (out1 is ordered per QP only), host frames in
// order.
type nicGolden struct {
	env   GoldenEnv
	timed *nic.Timed
	mem   *rc.SparseMemory
	qps   []rc.QPConfig
	bad   uint64 // in0 frames with tuser[0]: the RTL drops them (rx_bad_frame), golden never sees them
	out   []Output
}

func newNICGolden(env GoldenEnv) Golden { return &nicGolden{env: env} }

// configure builds the golden node; the workload calls it before the run.
func (g *nicGolden) configure(s *nicSetup) error {
	if g.timed != nil {
		return fmt.Errorf("configured twice (is the NIC in two [[rdma]] workloads?)")
	}
	g.mem = rc.NewSparseMemory()
	for _, b := range s.Init {
		g.mem.Write(b.Addr, b.Data)
	}
	node, err := rc.NewNode(s.Node, g.mem)
	if err != nil {
		return err
	}
	for _, mr := range s.MRs {
		if err := node.RegisterMR(mr); err != nil {
			return err
		}
	}
	for _, q := range s.QPs {
		if err := node.AddQP(q); err != nil {
			return err
		}
	}
	g.qps = s.QPs
	g.timed, err = nic.NewTimed(node, nic.TimedConfig{DataWidth: g.env.DataWidth, DMALatency: nicDMALatency})
	return err
}

func (g *nicGolden) Accept(port int, _, last uint64, data []byte, bad bool) []Output {
	if g.timed == nil {
		panic("nic golden model: not configured (the scenario checks every NIC is in an [[rdma]] workload)")
	}
	var err error
	switch port {
	case 0:
		if bad {
			g.bad++
			return nil
		}
		err = g.timed.Receive(data, last)
	case 1:
		err = g.timed.Command(data, last)
	case 2:
		err = g.timed.HostFrame(data, last)
	}
	if err != nil {
		panic(fmt.Sprintf("nic golden model: %v", err)) // the engine feeds accepts in order
	}
	return nil
}

func (g *nicGolden) Advance(until uint64) []Output {
	g.timed.Run(until)
	g.out = g.out[:0]
	for _, o := range g.timed.Outputs() {
		out := Output{Port: o.Port, Data: o.Data}
		switch o.Port {
		case nic.PortNet:
			out.Cycle, out.HasCycle = o.Cycle, true
		case nic.PortCompletion:
			out.Sub = completionSub(o.Data)
		}
		g.out = append(g.out, out)
	}
	return g.out
}

// Sub puts the DUT's completion records into the same per-QP streams.
func (g *nicGolden) Sub(port int, data []byte) string {
	if port == nic.PortCompletion {
		return completionSub(data)
	}
	return ""
}

// completionSub names a completion record's QP; a record too short to
// hold one still gets a stream, where it mismatches.
func completionSub(rec []byte) string {
	if len(rec) < 8 {
		return "qp ?"
	}
	return fmt.Sprintf("qp 0x%06x", binary.LittleEndian.Uint32(rec[4:8])&0xFFFFFF)
}

// Memory is the golden host memory.
func (g *nicGolden) Memory() rc.Memory { return g.mem }

func (g *nicGolden) Counters() map[string]uint64 {
	c := map[string]uint64{}
	if g.timed == nil {
		return c
	}
	node := g.timed.Node()
	all := node.Counters()
	for n := nic.NodeCounter(0); int(n) < nic.NumNodeCounters; n++ {
		var v uint64
		switch {
		case n < nic.NodeCounter(nic.FirstQPCounter):
			v = all[rc.Counter(n)] // QPs never count these: the node's own
		case n == nic.CntCmdBad:
			v = uint64(g.timed.Bad())
		case n == nic.CntCmdRejected:
			v = uint64(g.timed.Rejected())
		case n == nic.CntRxBadFrame:
			v = g.bad
		}
		c[n.String()] = v
	}
	for q := range nicParams["QPS"] {
		var qc rc.Counters
		if q < len(g.qps) {
			qc, _ = node.QPCounters(g.qps[q].QPN)
		}
		for k := nic.FirstQPCounter; k < rc.Counter(rc.NumCounters); k++ {
			c[fmt.Sprintf("qp%d.%s", q, k)] = qc[k]
		}
	}
	return c
}

// nicCounters names every counter of the NIC's CSR map.
func nicCounters() map[string]uint32 {
	m := map[string]uint32{}
	for n := nic.NodeCounter(0); int(n) < nic.NumNodeCounters; n++ {
		m[n.String()] = nic.NodeCounterAddr(n)
	}
	for q := range nicParams["QPS"] {
		for k := nic.FirstQPCounter; k < rc.Counter(rc.NumCounters); k++ {
			m[fmt.Sprintf("qp%d.%s", q, k)] = nic.QPCounterAddr(q, k)
		}
	}
	return m
}

func init() {
	Register(Top{Name: "nic", Module: "nic_top", In: 3, Out: 3, Golden: newNICGolden, Counters: nicCounters()})
}
