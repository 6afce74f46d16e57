package rc

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

var allOps = []Op{OpSend, OpSendImm, OpWrite, OpWriteImm, OpRead}

func TestPairCleanLink(t *testing.T) {
	s := newPair(t, 4, 1, nil, nil)
	w := newWorkload(t, s, 4, 400, mix{ops: allOps, maxSize: 16 << 10, zero: 0.05}, rand.New(rand.NewPCG(1, 2)))
	w.run(1 << 40)
	w.checkMemory()
	s.checkBounds()
	for side, n := range s.nodes {
		c := n.Counters()
		require.Zero(t, c[TxRetransmits], "side %d: no retransmission on a clean link", side)
		require.Zero(t, c[CompletionsError])
	}
}

// lossyRun runs the campaign: 10,000 mixed messages over 16 QPs
// with 1 % loss, 0.1 % corruption, 0.5 % duplication and 0.5 % reordering
// within a window. It returns a hash of every frame sent.
func lossyRun(t *testing.T, seed uint64, f faults, messages int, check bool) (sum [32]byte, total Counters) {
	// Every path MTU; PSNs that wrap past 2^24 early in the run; a few
	// QPs with a small window and READ limit so those limits bind.
	s := newPair(t, 16, seed, func(side int, c *QPConfig) {
		conn := int(c.QPN & 0xFF)
		c.PMTU = 256 << (conn % 5)
		c.SendPSN = roce.PSN(0x1000000 - 200 - 37*conn)
		c.RecvPSN = c.SendPSN
		if conn%4 == 3 {
			c.Window, c.MaxReads = 24, 2
		}
	}, nil)
	s.faults = f
	h := sha256.New()
	checker := wirecheck.NewChecker()
	bad := 0
	s.onSend = func(from int, f []byte, now uint64) {
		var stamp [9]byte
		binary.LittleEndian.PutUint64(stamp[:], now)
		stamp[8] = byte(from)
		h.Write(stamp[:])
		h.Write(f)
		if check {
			if r := checker.Check(f); !r.OK() && bad < 5 {
				bad++
				t.Errorf("frame at cycle %d fails the wire check: %v", now, r.Problems)
			}
		}
	}
	// Every go-back-N must have a cause: count the episodes per
	// connection and require, at each one, at least as many impairments
	// of that connection's frames before it (a reorder counts twice, see
	// pairSim.impaired).
	episodes := map[int]int{}
	for _, n := range s.nodes {
		n.OnEvent = func(e Event) {
			conn := int(e.QPN & 0xFF)
			episodes[conn]++
			causes := 0
			for _, c := range s.impaired[conn] {
				if c <= e.Cycle {
					causes++
				}
			}
			if causes < episodes[conn] {
				t.Errorf("%v on %v at cycle %d is retry %d of that connection but only %d frames of it were impaired",
					e.Kind, e.QPN, e.Cycle, episodes[conn], causes)
			}
		}
	}
	w := newWorkload(t, s, 16, messages, mix{ops: allOps, maxSize: 64 << 10, zero: 0.02, bigShare: 0.002},
		rand.New(rand.NewPCG(seed, 2)))
	w.run(1 << 50)
	w.checkMemory()
	high, bound := s.checkBounds()
	for _, n := range s.nodes {
		c := n.Counters()
		total.add(&c)
	}
	require.Zero(t, total[CompletionsError])
	if check {
		t.Logf("seed %d: %d cycles, faults %v, fullest responder queue %d of %d jobs", seed, s.now, s.faultCount, high, bound)
		t.Logf("counters: %v", total.Map())
		require.Equal(t, uint64(s.faultCount["corrupt_copies"]), total[RxBadICRC]+total[RxMalformed],
			"every corrupted frame is dropped by the ICRC or IPv4 checksum check")
	}
	return [32]byte(h.Sum(nil)), total
}

func TestPairLossyLink(t *testing.T) {
	seed := uint64(20261130)
	t.Logf("seed %d", seed)
	f := faults{lossPPM: 10_000, corruptPPM: 1_000, dupPPM: 5_000, reorderPPM: 5_000, reorderMax: 2_000}
	first, total := lossyRun(t, seed, f, 10_000, true)
	for _, c := range []Counter{TxRetransmits, ReqRetryNAK, ReqRetryTimeout, ReqRetryReadGap, RespDuplicateRead, RespDuplicate} {
		require.NotZero(t, total[c], "the campaign exercises %v", c)
	}
	if testing.Short() {
		return
	}
	again, _ := lossyRun(t, seed, f, 10_000, false)
	require.Equal(t, first, again, "same seed, same frames")
}

// One kind of fault at a time: copies alone cause no retransmission at
// all, and without reordering every go-back-N has its own lost frame.
func TestPairFaultKinds(t *testing.T) {
	_, total := lossyRun(t, 5, faults{dupPPM: 20_000}, 2_000, true)
	require.Zero(t, total[TxRetransmits], "duplicated frames alone are never a reason to resend")
	require.NotZero(t, total[RespDuplicate]+total[ReqStaleAck])
	_, total = lossyRun(t, 6, faults{lossPPM: 20_000}, 2_000, true)
	require.NotZero(t, total[TxRetransmits])
	_, total = lossyRun(t, 7, faults{reorderPPM: 20_000, reorderMax: 3_000}, 2_000, true)
	require.NotZero(t, total[RespOutOfSequence])
}
