// Package nicdev registers the RoCEv2 NIC with the engine: the top nic
// (rtl/nic/roce_nic.sv behind sim/tops/nic_top.sv), driven by golden/rc's
// node with the RTL's timing (golden/nic), and the top nic_icrc (its ICRC
// insert and check units alone). A NIC's queue pairs, memory regions and
// host memory are set up by a workload (harness/workload/rdma) through
// Golden.Configure; a NIC no workload sets up stays as reset leaves it.
package nicdev

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
)

// Params are the parameters sim/build.mk builds the nic models with
// (rtl/nic/README.md "Parameters"); a scenario's params may restate them,
// not change them.
var Params = map[string]int{"QPS": 16, "MRS": 16, "SQ_DEPTH": 32, "RQ_DEPTH": 32, "MAX_READS": 4}

// DMALatency is the DMA read latency the models run with: the engine
// starts them without --dma-read-latency (sim/README.md "DMA port").
const DMALatency = 64

// Setup is what a NIC's golden model and its DUT are configured with: the
// node, its memory regions, its QPs and the host memory's first contents.
// A workload makes it (harness/workload/rdma).
type Setup struct {
	Node rc.NodeConfig
	MRs  []rc.MemoryRegion // MR slot m holds MRs[m]
	QPs  []rc.QPConfig     // QP slot q holds QPs[q]
	Init []MemBlock        // written before traffic, to the DUT (MEM_WRITE) and to golden
}

// CSRWrites is the setup as the DUT takes it over the CSR bus: the node,
// then the memory regions, the QPs last (a QP loads when its state is
// written).
func (s *Setup) CSRWrites() ([]cosim.CSR, error) {
	var out []cosim.CSR
	add := func(ws []nic.CSRWrite) {
		for _, w := range ws {
			out = append(out, cosim.CSR{Addr: w.Addr, Data: w.Data})
		}
	}
	ws, err := nic.NodeConfigWrites(s.Node)
	if err != nil {
		return nil, err
	}
	add(ws)
	for m, mr := range s.MRs {
		add(nic.MRWrites(m, mr))
	}
	for q, c := range s.QPs {
		ws, err := nic.QPConfigWrites(q, c, s.Node.ClockHz)
		if err != nil {
			return nil, err
		}
		add(ws)
	}
	return out, nil
}

// MemBlock is a run of host memory bytes at an address.
type MemBlock struct {
	Addr uint64
	Data []byte
}

// Golden runs golden/rc's Node with the NIC RTL's timing (nic.Timed):
// every frame on out0 is predicted with the cycle its first beat leaves,
// completion records per QP (out1 is ordered per QP only), host frames in
// order.
type Golden struct {
	env   engine.GoldenEnv
	timed *nic.Timed
	mem   *rc.SparseMemory
	qps   []rc.QPConfig
	bad   uint64 // in0 frames with tuser[0]: the RTL drops them (rx_bad_frame), golden never sees them
	out   []engine.Output
	rates []qpRate // Sample's, made once
}

type qpRate struct {
	qpn            roce.QPN
	rate, timeouts string
}

// Sample reports each QP's DCQCN sending rate, in bytes per cycle (0
// with rate control off), and its local ACK timeouts so far, for the
// report (engine.Sampler).
func (g *Golden) Sample(add func(string, float64)) {
	if g.timed == nil {
		return
	}
	n := g.timed.Node()
	if g.rates == nil {
		for _, q := range n.QPNs() {
			g.rates = append(g.rates, qpRate{q, fmt.Sprintf("dcqcn_rate.qp%s", q), fmt.Sprintf("timeouts.qp%s", q)})
		}
	}
	for _, r := range g.rates {
		add(r.rate, float64(n.Rate(r.qpn))/65536) // Q16.16 bytes per cycle (golden/dcqcn)
		c, _ := n.QPCounters(r.qpn)
		add(r.timeouts, float64(c[rc.ReqRetryTimeout]))
	}
}

// Events reports the node's completions by opcode and status, messages
// by path MTU and size, and DCQCN steps for functional coverage
// (engine.Eventer); nothing from a NIC no workload set up.
func (g *Golden) Events(add func(string, uint64)) {
	if g.timed != nil {
		g.timed.Node().Events(add)
	}
}

func newGolden(env engine.GoldenEnv) engine.Golden { return &Golden{env: env} }

// Configure builds the golden node; a workload calls it before the run,
// once.
func (g *Golden) Configure(s *Setup) error {
	if g.timed != nil {
		return fmt.Errorf("configured twice (is the NIC in two [[rdma]] workloads?)")
	}
	g.mem = rc.NewSparseMemory()
	for _, b := range s.Init {
		g.mem.Write(b.Addr, b.Data)
	}
	nc := s.Node
	nc.DataWidth = g.env.DataWidth // pause quanta are the model's cycles
	node, err := rc.NewNode(nc, g.mem)
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
	g.timed, err = nic.NewTimed(node, nic.TimedConfig{DataWidth: g.env.DataWidth, DMALatency: DMALatency})
	return err
}

// reset configures a NIC no workload set up as reset leaves it (no
// address, no QP, no region): it still passes every frame that is not
// RoCEv2 up to its host (out2) and sends what its host gives it (in2), as
// the NIC host port of a bridged session does.
func (g *Golden) reset() {
	if g.timed != nil {
		return
	}
	if err := g.Configure(&Setup{Node: rc.NodeConfig{IP: netip.IPv4Unspecified(), ClockHz: g.env.ClockHz}}); err != nil {
		panic(fmt.Sprintf("nic golden model: reset state: %v", err))
	}
}

func (g *Golden) Accept(port int, _, last uint64, data []byte, bad bool) []engine.Output {
	g.reset()
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

func (g *Golden) Advance(until uint64) []engine.Output {
	g.reset()
	g.timed.Run(until)
	g.out = g.out[:0]
	for _, o := range g.timed.Outputs() {
		out := engine.Output{Port: o.Port, Data: o.Data}
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
func (g *Golden) Sub(port int, data []byte) string {
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

// MemWrite mirrors a write a test makes to the DUT's host memory during a
// run (engine.MemGolden).
func (g *Golden) MemWrite(addr uint64, data []byte, _ uint64) {
	g.reset()
	g.mem.Write(addr, data)
}

// Timed is the golden node with the RTL's timing, nil until configured.
func (g *Golden) Timed() *nic.Timed { return g.timed }

// Memory is the golden host memory.
func (g *Golden) Memory() rc.Memory { return g.mem }

func (g *Golden) Counters() map[string]uint64 {
	g.reset()
	c := map[string]uint64{}
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
		default:
			v, _ = nic.PauseCounter(n, node.PauseCounters())
		}
		c[n.String()] = v
	}
	for q := range Params["QPS"] {
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
	for q := range Params["QPS"] {
		for k := nic.FirstQPCounter; k < rc.Counter(rc.NumCounters); k++ {
			m[fmt.Sprintf("qp%d.%s", q, k)] = nic.QPCounterAddr(q, k)
		}
	}
	return m
}

func init() {
	engine.Register(engine.Top{Name: "nic", Module: "nic_top", In: 3, Out: 3, Golden: newGolden, Counters: nicCounters()})
}
