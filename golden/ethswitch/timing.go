package ethswitch

// Timing constants of eth_switch, mirrored from rtl/switch/README.md (the
// contract) and the header comment of rtl/switch/eth_switch.sv, which
// states the same numbers. Cycles are numbered as in sim/README.md: cycle 0
// is the first cycle after reset, and "at cycle t" means in cycle t,
// effective for what cycle t+1 sees. The model follows these exactly;
// timing_test.go checks each one against the model.
const (
	// DecideDelay: a frame whose last beat is accepted at cycle L is
	// decided (validity, MAC Control, priority, learning, forwarding, slot,
	// admission, ECN) at D = L + DecideDelay. Nothing happens to a frame
	// before D.
	DecideDelay = 1

	// QueueVisibleDelay: a copy queued at D is visible to its egress
	// scheduler from D + QueueVisibleDelay.
	QueueVisibleDelay = 1

	// PickToFirstBeat: a copy picked at cycle t has its first beat valid
	// at t + PickToFirstBeat; each further beat is valid the cycle after the
	// previous one was taken (tvalid && tready).
	PickToFirstBeat = 1

	// Latency: with an idle egress and tready high, a frame's first beat
	// leaves Latency cycles after its last beat came in (L+1 decide, L+2
	// pick, L+3 first beat).
	Latency = DecideDelay + QueueVisibleDelay + PickToFirstBeat

	// ReleaseDelay: the copy whose last beat is taken at cycle z no longer
	// counts in occ(e) and qocc(e,p) from z + ReleaseDelay, and when it was
	// its slot's last copy the slot is back in the pool (and the frame's
	// bytes out of ic(i,p)) from z + ReleaseDelay. A slot a frame took at D
	// without queueing any copy is back from D + ReleaseDelay too.
	ReleaseDelay = 1

	// PFCSendDelay: a PFC frame generated at the end of cycle t waits on
	// its egress from t + PFCSendDelay (so with an idle egress its first
	// beat is valid at t + PFCSendDelay + PickToFirstBeat).
	PFCSendDelay = 1

	// PauseStartDelay: a PFC frame decided at D pauses the picks of cycles
	// D + PauseStartDelay .. D + N, where N = PauseCycles(time, DATA_WIDTH);
	// N = 0 resumes from D + PauseStartDelay.
	PauseStartDelay = 1

	// CSRWriteDelay: a CSR write on the bus at cycle t takes effect for
	// decisions, picks and PFC evaluation of cycle t + CSRWriteDelay. A
	// counter written at t holds the written value at t + CSRWriteDelay,
	// whatever the counter counted in cycle t.
	CSRWriteDelay = 1

	// CSRReadLatency: csr_re at cycle t is answered with csr_rvalid at
	// t + CSRReadLatency, with the values as they are in cycle t (after
	// every update of cycle t-1).
	CSRReadLatency = 1

	// LandingSlots is the number of landing slots per input port (frames
	// land there as they come; they never limit the model).
	LandingSlots = 2
)

// Frame sizes and the pause quantum.
const (
	// MinFrameLen is the shortest frame the switch accepts (no FCS on the
	// AXI-Stream ports); shorter frames are dropped as runt.
	MinFrameLen = 60
	// PFCFrameLen is the length of every PFC frame the switch sends.
	PFCFrameLen = 60
	// PauseQuantumBits is the length of one pause quantum in bit times.
	PauseQuantumBits = 512
	// NumQueues is the number of priority queues per egress port (QUEUES).
	// Queue index = priority, 7 highest; the model supports only 8.
	NumQueues = 8
)
