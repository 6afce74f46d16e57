package rc

// Advance fires every timer due at or before now (the local ACK timeout,
// the RNR wait, DCQCN's timers) without receiving, posting or sending. A
// hardware model calls it in the exact cycle a timer is due even when its
// transmitter is busy: a retry restarts the timer from the cycle it fires
// in, so firing late would move every later deadline.
func (n *Node) Advance(now uint64) { n.advance(now) }

// NextTimer returns the earliest cycle a timer of any QP is due; ok is
// false when none is armed.
func (n *Node) NextTimer() (cycle uint64, ok bool) {
	for _, q := range n.qps {
		if c, qok := q.timerAt(); qok && (!ok || c < cycle) {
			cycle, ok = c, true
		}
	}
	return cycle, ok
}
