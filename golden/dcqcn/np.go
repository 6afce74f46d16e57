package dcqcn

// NPCounters counts what a NotificationPoint decided since Reset.
type NPCounters struct {
	CEPackets      uint64 // Allow calls: CE-marked packets seen for the QP
	CNPsAllowed    uint64 // Allow calls that returned true
	CNPsSuppressed uint64 // Allow calls that returned false (interval not over)
}

// NotificationPoint is the DCQCN state of one QP at the receiver: when it
// last allowed a CNP. The responder calls Allow for every CE-marked packet
// of the QP and sends a CNP only when it returns true, so the QP gets at
// most one CNP per interval. The zero value is ready: no CNP sent yet.
type NotificationPoint struct {
	last uint64 // cycle of the last allowed CNP, valid when sent
	sent bool
	n    NPCounters
}

// Reset forgets the last CNP and zeroes the counters.
func (np *NotificationPoint) Reset() { *np = NotificationPoint{} }

// Allow counts a CE-marked packet seen in cycle now and reports whether the
// QP may send a CNP for it: true, and records now, when no CNP was allowed
// yet or at least interval cycles have passed since the last one
// (now - last >= interval); false otherwise. With interval 0 every CE packet
// gets a CNP. now must not decrease; a now before the last CNP is treated
// as too early.
func (np *NotificationPoint) Allow(now, interval uint64) bool {
	np.n.CEPackets++
	if np.sent && (now < np.last || now-np.last < interval) {
		np.n.CNPsSuppressed++
		return false
	}
	np.last, np.sent = now, true
	np.n.CNPsAllowed++
	return true
}

// Last returns the cycle of the last allowed CNP, or ok false if none.
func (np *NotificationPoint) Last() (cycle uint64, ok bool) { return np.last, np.sent }

// Counters returns the statistics counters.
func (np *NotificationPoint) Counters() NPCounters { return np.n }
