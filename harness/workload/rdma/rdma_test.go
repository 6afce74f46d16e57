package rdma

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/device/nicdev"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// rdmaScenario is a two-NIC scenario with one workload.
func rdmaScenario(t *testing.T, extra string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("rdma.toml", []byte(`
name = "rdma"
cycles = 50_000_000
[[model]]
name = "a"
top = "nic"
[[model]]
name = "b"
top = "nic"
[[rdma]]
nics = ["a", "b"]
`+extra))
	require.NoError(t, err)
	return sc
}

// lossyWire carries frames between the two fake NICs with a latency and
// seeded loss: enough of the engine to close the workload's loop.
type lossyWire struct {
	latency uint64
	lossPct float64
	rng     *rand.Rand
	lost    int
}

// goldenNIC is the golden model of a 64-bit nic top, as the engine makes it.
func goldenNIC(t *testing.T) *nicdev.Golden {
	t.Helper()
	top, err := engine.LookupTop("nic")
	require.NoError(t, err)
	return top.Golden(engine.GoldenEnv{DataWidth: 64, ClockHz: 156_250_000}).(*nicdev.Golden)
}

// newTestRDMA makes the workloads of sc and the golden NICs their hosts
// think they drive.
func newTestRDMA(t *testing.T, sc *scenario.Scenario, seed uint64) ([]*rdma, *hosts) {
	t.Helper()
	hs := newHosts()
	var xs []*rdma
	goldens := map[string]*nicdev.Golden{}
	for i, w := range sc.RDMA {
		x, err := newRDMA(i, w, sc, seed, 156_250_000, hs)
		require.NoError(t, err)
		for _, s := range x.sides {
			if goldens[s.model] == nil {
				goldens[s.model] = goldenNIC(t)
			}
			s.golden = goldens[s.model]
		}
		xs = append(xs, x)
	}
	for name, g := range goldens {
		setup := hs.setupOf(name, xs)
		require.NoError(t, g.Configure(&setup), "the workloads' own golden models configure")
	}
	return xs, hs
}

// runWorkload drives the workloads against golden NICs standing in for the
// DUTs (this tests the workload and the NIC golden set-up, not RTL):
// windows of the link latency, each frame to the NIC of its destination MAC
// (a switch that knows every address), completions back to the hosts.
// It returns each NIC's stand-in by name.
func runWorkload(t *testing.T, xs []*rdma, hs *hosts, wire *lossyWire, limit uint64) map[string]*nicdev.Golden {
	t.Helper()
	duts := map[string]*nicdev.Golden{}
	byMAC := map[[6]byte]string{}
	for _, name := range hs.order {
		setup := hs.setupOf(name, xs)
		byMAC[setup.Node.MAC] = name
		duts[name] = goldenNIC(t)
		require.NoError(t, duts[name].Configure(&setup))
	}
	for _, x := range xs {
		x.byModel = map[string]int{}
		for _, s := range x.sides {
			x.byModel[s.model] = s.k
		}
		x.begin(100)
	}
	type arrival struct {
		last uint64
		data []byte
	}
	wires := map[string][]arrival{} // frames on the way to each NIC
	busy := map[string]uint64{}     // the last beat of the last frame each NIC took
	for now := uint64(0); ; now += wire.latency {
		end := now + wire.latency
		for _, name := range hs.order {
			for _, x := range xs {
				for _, f := range x.Due(name, end, nil) {
					duts[name].Accept(int(f.Port), f.Cycle, f.Cycle, f.Data, false)
				}
			}
			// One frame after the other, as the port of a switch sends them.
			w := wires[name]
			sort.SliceStable(w, func(i, j int) bool { return w[i].last < w[j].last })
			n := 0
			for _, a := range w {
				at := max(a.last, busy[name]+uint64((len(a.data)+7)/8))
				if at >= end {
					break
				}
				duts[name].Accept(0, at, at, a.data, false)
				busy[name] = at
				n++
			}
			wires[name] = w[n:]
		}
		for _, name := range hs.order {
			for _, o := range duts[name].Advance(end) {
				switch o.Port {
				case nic.PortNet:
					if wire.rng.Float64()*100 < wire.lossPct {
						wire.lost++
						continue
					}
					to, ok := byMAC[[6]byte(o.Data[:6])]
					require.True(t, ok, "a frame to %x, which no NIC has", o.Data[:6])
					last := o.Cycle + uint64((len(o.Data)*8+63)/64) - 1
					wires[to] = append(wires[to], arrival{last + wire.latency, append([]byte(nil), o.Data...)})
				case nic.PortCompletion:
					for _, x := range xs {
						x.Emitted(name, o.Port, o.Data, end)
					}
				}
			}
		}
		left := 0
		for _, x := range xs {
			left += x.outstanding()
		}
		if left == 0 {
			return duts
		}
		require.Less(t, end, limit, "the workloads did not finish: %d outstanding, failures %v", left, xs[0].fails)
	}
}

// finishAll checks every workload's end state against its stand-in NICs'
// memory.
func finishAll(xs []*rdma, duts map[string]*nicdev.Golden) {
	for _, x := range xs {
		for k, s := range x.sides {
			dut := make([]byte, s.memSize())
			duts[s.model].Memory().Read(s.base, dut)
			x.finish(k, dut)
		}
	}
}

func TestRDMAWorkloadCompletesOverLossyWire(t *testing.T) {
	const seed = 11
	t.Logf("seed %d", seed)
	sc := rdmaScenario(t, `qps = 4
messages = 600
max_size = 9000
outstanding = 6
timeout = 4
`)
	xs, hs := newTestRDMA(t, sc, seed)
	x := xs[0]
	wire := &lossyWire{latency: 156, lossPct: 1, rng: rand.New(rand.NewPCG(seed, 1))}
	duts := runWorkload(t, xs, hs, wire, 200_000_000)
	assert.Empty(t, x.fails)
	assert.Positive(t, wire.lost)

	finishAll(xs, duts)
	var retries uint64
	for _, d := range duts {
		c := d.Timed().Node().Counters()
		retries += c[rc.ReqRetryNAK] + c[rc.ReqRetryTimeout] + c[rc.ReqRetryReadGap]
	}
	assert.Empty(t, x.fails, "every message completes and leaves memory as the workload meant")
	assert.Positive(t, retries, "the lost frames were recovered by retransmission")
	t.Logf("%d frames lost, %d retries, done by cycle %d", wire.lost, retries, duts["a"].Timed().Now())

	ops := map[rc.Op]int{}
	for _, s := range x.sides {
		for _, q := range s.qps {
			for _, m := range q.msgs {
				ops[m.op]++
			}
		}
	}
	for op := rc.OpSend; op <= rc.OpRead; op++ {
		assert.Positive(t, ops[op], "op %v in the mix", op)
	}
}

// A NIC that corrupts what it writes is caught by the workload's own check,
// without the golden model.
func TestRDMAWorkloadCatchesWrongMemory(t *testing.T) {
	sc := rdmaScenario(t, "qps = 2\nmessages = 40\nwrite_pct = 100\nsend_pct = 0\nread_pct = 0\nmin_size = 64\n")
	xs, hs := newTestRDMA(t, sc, 3)
	x := xs[0]
	duts := runWorkload(t, xs, hs, &lossyWire{latency: 100, rng: rand.New(rand.NewPCG(3, 1))}, 50_000_000)
	require.Empty(t, x.fails)
	s := x.sides[1]
	dut := make([]byte, s.memSize())
	duts["b"].Memory().Read(s.base, dut)
	at := s.addr(areaWDst, 1, 0) - s.base + 5
	dut[at] ^= 0x40
	x.finish(1, dut)
	require.Len(t, x.fails, 1)
	assert.Contains(t, x.fails[0], fmt.Sprintf("memory at 0x%x (WRITE target buffer of QP slot 1, buffer 0)", s.base+at))
}

func TestRDMAWorkloadCatchesWrongCompletion(t *testing.T) {
	sc := rdmaScenario(t, "qps = 1\nmessages = 4\n")
	x, err := newRDMA(0, sc.RDMA[0], sc, 5, 156_250_000, newHosts())
	require.NoError(t, err)
	x.begin(0)
	s := x.sides[0]
	if len(s.qps[0].byID) == 0 {
		s = x.sides[1]
	}
	var m *rdmaMsg
	for _, mm := range s.qps[0].byID {
		m = mm
	}
	require.NotNil(t, m)
	bad := rc.Completion{QPN: s.qps[0].qpn, ID: m.id, Op: m.op, Bytes: m.size + 1}
	x.completion(s.k, nic.AppendCompletion(nil, bad), 10)
	require.Len(t, x.fails, 1)
	assert.Contains(t, x.fails[0], "send completion")
	x.completion(s.k, nic.AppendCompletion(nil, bad), 11)
	assert.Contains(t, x.fails[1], "no posted work request")
}

// An empty [rdma.dcqcn] table is the DCQCN paper's reaction point at the
// NIC's line rate and its 50 us CNP interval, and the NIC takes it; a value
// given replaces only its own field.
func TestDCQCNConfigDefaults(t *testing.T) {
	const clockHz = 156_250_000
	interval, c := dcqcnConfig(scenario.DCQCN{}, 64, clockHz)
	assert.Equal(t, dcqcn.DefaultConfig(64*clockHz, clockHz), c)
	assert.Equal(t, dcqcn.DefaultCNPInterval(clockHz), interval)
	assert.Equal(t, dcqcn.Rate(8*dcqcn.RateOne), c.LineRate, "64 bits a cycle: 8 bytes")
	_, err := nic.NodeConfigWrites(rc.NodeConfig{IP: netip.AddrFrom4([4]byte{10, 0, 0, 1}), ClockHz: clockHz, CNPInterval: interval, DCQCN: c})
	require.NoError(t, err)

	interval, c2 := dcqcnConfig(scenario.DCQCN{CNPInterval: 2000, GShift: 4, MinMbps: 312.5}, 64, clockHz)
	assert.Equal(t, uint64(2000), interval)
	assert.Equal(t, uint8(4), c2.GShift)
	assert.Equal(t, c.LineRate/32, c2.MinRate, "312.5 Mbit/s is a 32nd of 10 Gbit/s")
	c2.GShift, c2.MinRate = c.GShift, c.MinRate
	assert.Equal(t, c, c2, "the other fields keep the paper's values")
}

// Five NICs in four workloads of every pattern, a NIC in up to four of
// them: every message completes, memory ends as meant, and each pattern
// joins the NICs it names and sends the way it says.
func TestRDMAWorkloadPatterns(t *testing.T) {
	const seed = 7
	var models string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		models += fmt.Sprintf("[[model]]\nname = %q\ntop = \"nic\"\n", n)
	}
	sc, err := scenario.Parse("patterns.toml", []byte(`name = "patterns"
cycles = 50_000_000
`+models+`
[[rdma]]
nics = ["a", "b", "c", "d"]
pattern = "incast"
qps = 2
messages = 120
read_pct = 0
send_pct = 50
write_pct = 50
[[rdma]]
nics = ["b", "c", "e"]
pattern = "all-to-all"
qps = 1
messages = 90
[[rdma]]
nics = ["a", "b", "c", "d", "e"]
pattern = "permutation"
qps = 1
messages = 100
max_size = 600
[[rdma]]
nics = ["e", "a", "c", "d"]
qps = 1
messages = 40
`))
	require.NoError(t, err)
	xs, hs := newTestRDMA(t, sc, seed)
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, hs.order)
	duts := runWorkload(t, xs, hs, &lossyWire{latency: 120, rng: rand.New(rand.NewPCG(seed, 1))}, 100_000_000)
	finishAll(xs, duts)
	for _, x := range xs {
		assert.Empty(t, x.fails, x.name)
	}

	// Who sent to whom, by the messages each QP carried.
	sent := func(x *rdma) map[[2]string]int {
		m := map[[2]string]int{}
		for _, s := range x.sides {
			for _, q := range s.qps {
				m[[2]string{s.model, q.peerQP.side.model}] += len(q.msgs)
			}
		}
		return m
	}
	incast := sent(xs[0])
	for _, from := range []string{"b", "c", "d"} {
		assert.Positive(t, incast[[2]string{from, "a"}], "incast: %s sends to a", from)
		assert.Zero(t, incast[[2]string{"a", from}], "incast: a posts nothing")
	}
	assert.Len(t, xs[0].sides[0].qps, 6, "the incast's target holds 3 x 2 QPs")
	a2a := sent(xs[1])
	for _, p := range [][2]string{{"b", "c"}, {"c", "b"}, {"b", "e"}, {"e", "b"}, {"c", "e"}, {"e", "c"}} {
		assert.Positive(t, a2a[p], "all-to-all: %s sends to %s", p[0], p[1])
	}
	perm := sent(xs[2])
	to := map[string]string{}
	for p, n := range perm {
		if n > 0 {
			assert.Empty(t, to[p[0]], "permutation: %s sends to one NIC only", p[0])
			to[p[0]] = p[1]
		}
	}
	assert.Len(t, to, 5, "permutation: every NIC sends")
	heard := map[string]bool{}
	for from, dst := range to {
		assert.NotEqual(t, from, dst)
		heard[dst] = true
	}
	assert.Len(t, heard, 5, "permutation: every NIC hears from one")
	pairs := sent(xs[3])
	for p := range pairs {
		assert.Contains(t, [][2]string{{"e", "a"}, {"a", "e"}, {"c", "d"}, {"d", "c"}}, p, "pairs: e-a and c-d only")
	}

	// Each NIC's workloads have their own QPNs and regions.
	for _, name := range hs.order {
		setup := hs.setupOf(name, xs)
		qpns := map[roce.QPN]bool{}
		for _, q := range setup.QPs {
			assert.False(t, qpns[q.QPN], "%s: QPN %v twice", name, q.QPN)
			qpns[q.QPN] = true
		}
		for j := 1; j < len(setup.MRs); j++ {
			prev := setup.MRs[j-1]
			assert.LessOrEqual(t, prev.Base+prev.Length, setup.MRs[j].Base, "%s: regions overlap", name)
		}
	}
	assert.Len(t, hs.setupOf("a", xs).QPs, 6+2+1)
}
