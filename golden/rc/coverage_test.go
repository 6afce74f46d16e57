package rc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/dcqcn"
)

func events(n *Node) map[string]uint64 {
	m := map[string]uint64{}
	n.Events(func(name string, c uint64) {
		_, twice := m[name]
		if twice {
			panic("event " + name + " twice")
		}
		m[name] = c
	})
	return m
}

// The coverage events agree with what the workload posted and what the
// counters say: every message in its size class at its QP's path MTU,
// every completion a success by its opcode, no DCQCN step on a node
// without rate control; every declared event is reported, hit or not.
func TestEventsCleanLink(t *testing.T) {
	s := newPair(t, 5, 1, func(side int, c *QPConfig) { c.PMTU = 256 << (int(c.QPN&0xFF) % 5) }, nil)
	w := newWorkload(t, s, 5, 300, mix{ops: allOps, maxSize: 8 << 10, zero: 0.1}, rand.New(rand.NewPCG(1, 2)))
	w.run(1 << 40)
	want := [2]map[string]uint64{{}, {}}
	for i, q := range w.queues { // queue i is side i/conns's QP i%conns
		for _, m := range q {
			pmtu := 256 << (i % w.conns % 5)
			class := "multi_packet"
			switch {
			case m.wr.Length == 0:
				class = "empty"
			case m.wr.Length <= uint32(pmtu):
				class = "one_packet"
			}
			want[m.from][fmt.Sprintf("message.pmtu%d.%s", pmtu, class)]++
			want[m.from][fmt.Sprintf("send.%v.SUCCESS", m.wr.Op)]++
			if m.recv {
				want[1-m.from][fmt.Sprintf("recv.%v.SUCCESS", m.wr.Op)]++
			}
		}
	}
	for side, n := range s.nodes {
		got := events(n)
		assert.Len(t, got, 26+7+15+10, "every declared event, hit or not")
		for name := range want[side] {
			assert.Contains(t, got, name, "side %d", side)
		}
		for name, c := range got {
			assert.Equal(t, want[side][name], c, "side %d: %s", side, name)
		}
		var completions uint64
		for name, c := range got {
			if strings.HasPrefix(name, "send.") || strings.HasPrefix(name, "recv.") {
				completions += c
			}
		}
		ctr := n.Counters()
		assert.Equal(t, ctr[CompletionsSuccess], completions, "side %d: each completion once", side)
	}
}

// Under CE marks, the DCQCN steps show: the CNPs each reaction point took
// (as the rx_cnp counters), rate cuts, and the increase stages back to
// line rate once the marks stop.
func TestEventsCongestion(t *testing.T) {
	s := newPair(t, 2, 3, nil, func(c *NodeConfig) {
		c.DCQCN = dcqcn.DefaultConfig(10_000_000_000, testClock)
		c.CNPInterval = dcqcn.DefaultCNPInterval(testClock)
	})
	s.faults = faults{cePPM: 20_000}
	w := newWorkload(t, s, 2, 300, mix{ops: allOps, maxSize: 64 << 10}, rand.New(rand.NewPCG(3, 3)))
	w.run(1 << 50)
	s.faults = faults{}
	s.run(1 << 50)
	var sum map[string]uint64
	var cnps uint64
	for _, n := range s.nodes {
		for name, c := range events(n) {
			if sum == nil {
				sum = map[string]uint64{}
			}
			sum[name] += c
		}
		c := n.Counters()
		cnps += c[RxCNP]
	}
	require.NotZero(t, cnps)
	assert.Equal(t, cnps, sum["dcqcn.cnp"])
	for _, e := range []string{"dcqcn.cut", "dcqcn.fast_recovery", "dcqcn.additive_increase", "dcqcn.back_to_line_rate"} {
		assert.Positive(t, sum[e], e)
	}
}
