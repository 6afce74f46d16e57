package rc

import (
	"math/rand/v2"
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/stretchr/testify/require"
)

// A link that marks CE on 2 % of the frames (a congested switch): the
// receivers send CNPs at most once per QP per interval, the senders cut
// their rates, and once the marking stops every rate climbs back to line
// rate and the DCQCN timers go quiet.
func TestPairCongestion(t *testing.T) {
	var cfg dcqcn.Config
	s := newPair(t, 4, 3, nil, func(c *NodeConfig) {
		c.DCQCN = dcqcn.DefaultConfig(10_000_000_000, testClock)
		c.CNPInterval = dcqcn.DefaultCNPInterval(testClock)
		cfg = c.DCQCN
	})
	s.faults = faults{cePPM: 20_000}
	lowest := cfg.LineRate
	s.onSend = func(from int, f []byte, now uint64) {
		for c := range 4 {
			if r := dcqcn.Rate(s.nodes[from].Rate(qpnOf(from, c))); r < lowest {
				lowest = r
			}
		}
	}
	w := newWorkload(t, s, 4, 600, mix{ops: allOps, maxSize: 64 << 10}, rand.New(rand.NewPCG(3, 3)))
	w.run(1 << 50)
	w.checkMemory()
	s.checkBounds()
	var total Counters
	for _, n := range s.nodes {
		c := n.Counters()
		total.add(&c)
	}
	t.Logf("lowest rate %v of %v; %v", lowest, cfg.LineRate, total.Map())
	require.NotZero(t, total[RxCE])
	require.NotZero(t, total[TxCNP])
	require.NotZero(t, total[CNPSuppressed], "the CNP interval binds")
	require.Equal(t, total[TxCNP], total[RxCNP], "every CNP reaches its QP")
	require.Zero(t, total[TxRetransmits], "congestion marks alone lose nothing")
	require.Less(t, lowest, cfg.LineRate/2)

	// No more marks, no more traffic: the rates recover and time runs
	// out of events.
	s.faults = faults{}
	s.run(1 << 50)
	for side, n := range s.nodes {
		for c := range 4 {
			require.Equal(t, uint32(cfg.LineRate), n.Rate(qpnOf(side, c)), "side %d QP %d back at line rate", side, c)
		}
		_, pending := n.NextEvent()
		require.False(t, pending, "side %d still has timers", side)
	}
}
