package rdma

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/harness/device/nicdev"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

func init() { engine.RegisterWorkload(setup) }

// rocePacketOverhead is what a RoCEv2 packet of the NIC adds to its
// payload at most: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16 and
// ImmDt 4 (RDMA WRITE Only with Immediate, IBA 9.2 to 9.4), ICRC 4.
const rocePacketOverhead = 14 + 20 + 8 + 12 + 16 + 4 + 4

// pathMTUFits refuses a workload whose full-size packets a model on the
// path between two of its NICs cannot take (a switch drops them as
// oversize): the error names the scenario's file, line and key. A
// permutation may join any two of its NICs, so all are checked.
func pathMTUFits(ws *engine.WorkloadSetup, i int, w scenario.RDMA) error {
	frame := w.PMTU + rocePacketOverhead
	if w.VLAN != nil {
		frame += 4 // the 802.1Q tag
	}
	var ends [][2]int
	if w.Pattern == scenario.PatternPermutation {
		for a := range w.NICs {
			for b := a + 1; b < len(w.NICs); b++ {
				ends = append(ends, [2]int{a, b})
			}
		}
	} else {
		for _, c := range w.Connections(nil) {
			ends = append(ends, [2]int{c.A, c.B})
		}
	}
	for _, e := range ends {
		from, to := w.NICs[e[0]], w.NICs[e[1]]
		for _, name := range ws.Path(from, to) {
			m, err := ws.Model(name)
			if err != nil || name == from || name == to {
				continue
			}
			limit, what := m.Top.MaxFrame, ""
			if r := m.Top.MaxFrameRegister; r != "" {
				if v, ok := m.Spec.CSR[r]; ok && v >= 0 && (limit == 0 || v < int64(limit)) {
					limit, what = int(v), " (its "+r+" register)"
				}
			}
			if limit == 0 || frame <= limit {
				continue
			}
			return &engine.ScenarioError{Err: ws.Scenario.KeyError(fmt.Sprintf("rdma.%d.pmtu", i),
				"a path MTU of %d makes packets of up to %d bytes, and %s (top %s) on the path from %s to %s takes at most %d%s: use %d or less",
				w.PMTU, frame, name, m.Top.Name, from, to, limit, what, LargestPMTU(limit))}
		}
	}
	return nil
}

// LargestPMTU is the largest path MTU whose packets fit in maxFrame bytes.
func LargestPMTU(maxFrame int) int {
	p := 256
	for _, q := range []int{512, 1024, 2048, 4096} {
		if q+rocePacketOverhead <= maxFrame {
			p = q
		}
	}
	return p
}

// hosts is every NIC the scenario's workloads name, set up together: the
// first workload that names a NIC gives its address and congestion control
// (the scenario check makes the others agree), and each workload adds its
// own QPs and memory region, one after the other.
type hosts struct {
	byName map[string]*nicHost
	order  []string // as the workloads first name them
}

func newHosts() *hosts { return &hosts{byName: map[string]*nicHost{}} }

// setupOf is NIC name's whole setup: its node and the parts of every
// workload of xs that names it, in workload order.
func (hs *hosts) setupOf(name string, xs []*rdma) nicdev.Setup {
	setup := nicdev.Setup{Node: hs.byName[name].node}
	for _, x := range xs {
		for _, s := range x.sides {
			if s.model == name {
				setup.MRs = append(setup.MRs, s.part.MRs...)
				setup.QPs = append(setup.QPs, s.part.QPs...)
				setup.Init = append(setup.Init, s.part.Init...)
			}
		}
	}
	return setup
}

type nicHost struct {
	node rc.NodeConfig
	next uint64 // where the next workload's region starts
}

// host is NIC name's host, registered by NIC k of workload i if it is the first.
func (hs *hosts) host(name string, i, k int, w scenario.RDMA, sc *scenario.Scenario, clockHz uint64) *nicHost {
	if h, ok := hs.byName[name]; ok {
		return h
	}
	mac, ip := nicAddr(i, k)
	h := &nicHost{node: rc.NodeConfig{MAC: mac, IP: ip, ClockHz: clockHz, DSCP: 26, CNPDSCP: 48, CNPPriority: uint8(w.CNPPriority)}, next: rdmaBase}
	if w.DCQCN != nil {
		h.node.CNPInterval, h.node.DCQCN = dcqcnConfig(*w.DCQCN, dataWidth(sc, name), clockHz)
	}
	hs.byName[name] = h
	hs.order = append(hs.order, name)
	return h
}

// setup makes the scenario's [[rdma]] workloads: each NIC's golden model
// and DUT get the same configuration (calls and CSR writes; the parts of
// all its workloads, in workload order) and the same first memory
// contents, and the hosts' first posts are scheduled after the
// configuration writes of all the workload's NICs.
func setup(ws *engine.WorkloadSetup) ([]engine.Workload, error) {
	sc := ws.Scenario
	if len(sc.RDMA) == 0 {
		return nil, nil
	}
	hs := newHosts()
	var xs []*rdma
	for i, w := range sc.RDMA {
		if err := pathMTUFits(ws, i, w); err != nil {
			return nil, err
		}
		x, err := newRDMA(i, w, sc, ws.Seed, ws.ClockHz, hs)
		if err != nil {
			return nil, &engine.ScenarioError{Err: fmt.Errorf("%s: %w", sc.File, err)}
		}
		x.byModel = map[string]int{}
		xs = append(xs, x)
	}
	writes := map[string]uint64{}
	for _, name := range hs.order {
		m, err := ws.Model(name)
		if err != nil {
			return nil, &engine.ScenarioError{Err: fmt.Errorf("%s: [[rdma]]: %w", sc.File, err)}
		}
		g, ok := m.Golden.(*nicdev.Golden)
		if !ok {
			return nil, &engine.ScenarioError{Err: fmt.Errorf("%s: [[rdma]]: model %s is a %s, not a NIC (top \"nic\")", sc.File, name, m.Top.Name)}
		}
		if m.Spec.SrcGapPct != 0 || m.Spec.SinkStallPct != 0 {
			return nil, &engine.ScenarioError{Err: fmt.Errorf("%s: model %s: a NIC waits neither on the wire nor on the host (rtl/nic/README.md \"Ports\"): src_gap_pct and sink_stall_pct must be 0", sc.File, name)}
		}
		setup := hs.setupOf(name, xs)
		for _, x := range xs {
			for _, s := range x.sides {
				if s.model == name {
					s.golden = g
					x.byModel[name] = s.k
					m.DrivenBy(x)
				}
			}
		}
		if err := g.Configure(&setup); err != nil {
			return nil, &engine.ScenarioError{Err: fmt.Errorf("%s: [[rdma]]: model %s: %w", sc.File, name, err)}
		}
		csr, err := setup.CSRWrites()
		if err != nil {
			return nil, &engine.ScenarioError{Err: fmt.Errorf("%s: [[rdma]]: model %s: %w", sc.File, name, err)}
		}
		writes[name] = uint64(m.Configure(csr)) // one write per cycle from cycle 0
		mem := make([]cosim.Mem, 0, len(setup.Init))
		for _, b := range setup.Init {
			mem = append(mem, cosim.Mem{Addr: b.Addr, Data: b.Data})
		}
		m.InitMemory(mem)
	}
	out := make([]engine.Workload, 0, len(xs))
	for _, x := range xs {
		start := uint64(0)
		for _, s := range x.sides {
			start = max(start, writes[s.model])
		}
		x.begin(start + 16)
		out = append(out, x)
	}
	return out, nil
}

// Reaction is the host latency: a host posts that long after it read a
// completion.
func (x *rdma) Reaction() uint64 { return x.hostLatency }

func (x *rdma) Name() string { return x.name }

// Latencies are the cycles from each send work request's post to its
// successful completion (engine.Latencies).
func (x *rdma) Latencies() []uint64 { return x.latencies }

// Due gives a NIC the command records its host posts before end (in1).
func (x *rdma) Due(model string, end uint64, frames []cosim.Frame) []cosim.Frame {
	k, ok := x.byModel[model]
	if !ok {
		return frames
	}
	return x.due(k, end, frames)
}

// Flows says what each QP that sent carried (engine.Flows), QPs in the
// order of their sides.
func (x *rdma) Flows() []engine.Flow {
	var out []engine.Flow
	for _, s := range x.sides {
		for _, q := range s.qps {
			if len(q.msgs) == 0 {
				continue
			}
			out = append(out, engine.Flow{Workload: x.name, From: s.model, To: q.peerQP.side.model, QPN: uint32(q.qpn),
				Messages: q.sendOK, Bytes: q.bytesOK, FirstPost: q.firstPost, LastCompletion: q.lastDone})
		}
	}
	return out
}

// Next is the cycle of the earliest scheduled post.
func (x *rdma) Next() (uint64, bool) { return x.nextPost() }

// Emitted reads the completion records a NIC emits (out1).
func (x *rdma) Emitted(model string, port int, data []byte, last uint64) {
	if k, ok := x.byModel[model]; ok && port == nic.PortCompletion {
		x.completion(k, data, last)
	}
}

// Pending reports work requests posted or still to post that did not
// complete.
func (x *rdma) Pending() bool { return x.outstanding() > 0 }

// Waiting says which QPs have work outstanding, the first few in full:
// messages not posted yet, work requests posted and not completed (the
// oldest with its opcode, size and cycle), receives not completed
// (engine.Explainer).
func (x *rdma) Waiting() string {
	var qps []string
	more := 0
	for _, s := range x.sides {
		for _, q := range s.qps {
			unposted, open, recvs := len(q.msgs)-q.next, len(q.byID), len(q.consumers)-q.recvNext
			if unposted+open+recvs == 0 {
				continue
			}
			if len(qps) == 4 {
				more++
				continue
			}
			d := fmt.Sprintf("%s QP %v: %d to post, %d posted and not completed", s.model, q.qpn, unposted, open)
			var oldest *rdmaMsg
			for _, m := range q.byID {
				if oldest == nil || m.post < oldest.post || m.post == oldest.post && m.id < oldest.id {
					oldest = m
				}
			}
			if oldest != nil {
				d += fmt.Sprintf(" (the oldest %v of %d bytes, id %d, posted at cycle %d)", oldest.op, oldest.size, oldest.id, oldest.post)
			}
			if recvs > 0 {
				d += fmt.Sprintf(", %d receives to complete", recvs)
			}
			qps = append(qps, d)
		}
	}
	if more > 0 {
		qps = append(qps, fmt.Sprintf("%d more QPs", more))
	}
	return strings.Join(qps, "; ")
}

// Finish reads each NIC's registered region from the DUT and compares it
// with the golden model's memory and with the workload's.
func (x *rdma) Finish(ctx context.Context, at uint64, models map[string]*cosim.Model) ([]string, error) {
	var wg sync.WaitGroup
	n := len(x.sides)
	errs, mem, dut := make([]error, n), make([][]string, n), make([][]byte, n)
	for k, s := range x.sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dut[k], mem[k], errs[k] = s.readBack(ctx, at, models[s.model])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var fails []string
	for _, f := range mem {
		fails = append(fails, f...)
	}
	for k := range x.sides {
		x.finish(k, dut[k])
	}
	return append(fails, x.fails...), nil
}

// readBack reads the side's registered region from its DUT and compares
// it with the golden model's memory.
func (s *rdmaSide) readBack(ctx context.Context, at uint64, m *cosim.Model) (dut []byte, fails []string, err error) {
	size := s.memSize()
	w := cosim.Window{Target: at}
	for off := uint64(0); off < size; off += cosim.MaxMemLen {
		w.MemReads = append(w.MemReads, cosim.Mem{Addr: s.base + off, Length: uint32(min(size-off, cosim.MaxMemLen))})
	}
	rep, err := m.Step(ctx, w)
	if err != nil {
		return nil, nil, err
	}
	dut = make([]byte, 0, size)
	for _, d := range rep.MemData {
		dut = append(dut, d.Data...)
	}
	if uint64(len(dut)) != size {
		return nil, nil, fmt.Errorf("model %s: read %d bytes of host memory back, want %d", s.model, len(dut), size)
	}
	want := make([]byte, size)
	s.golden.Memory().Read(s.base, want)
	if off, ok := firstDifference(want, dut); ok {
		a, q, slot := s.where(uint64(off))
		fails = append(fails, fmt.Sprintf("%s: host memory at 0x%x (%s buffer of QP slot %d, buffer %d) is 0x%02x, golden has 0x%02x",
			s.model, s.base+uint64(off), areaNames[a], q, slot, dut[off], want[off]))
	}
	return dut, fails, nil
}
