package nic

// Timing constants of the NIC's RTL units, mirrored from the header
// comments of rtl/nic/icrc_insert.sv and rtl/nic/icrc_check.sv. The ICRC
// golden models predict frames, not cycles, so the scoreboard does not need
// them today; the RC transport model will (it paces and times out in
// cycles), and rtl/nic/tb/icrc checks the RTL against them exactly.
const (
	// ICRCInsertLatency: an input beat accepted in cycle t is offered on
	// the output from t+1; first beat in to first beat out.
	ICRCInsertLatency = 1
	// ICRCInsertSpillBubble: a RoCEv2 frame whose last beat holds more than
	// KEEP_WIDTH-4 bytes leaves with one extra beat, and the input is not
	// ready for one cycle.
	ICRCInsertSpillBubble = 1
	// ICRCCheckLatency: as the insert unit, except that the last output
	// beat of a RoCEv2 frame waits for the frame's last input beat and is
	// offered the cycle after it is accepted.
	ICRCCheckLatency = 1
	// ICRCCounterDelay: the statistics counters count a frame from the
	// cycle after its last input beat is accepted.
	ICRCCounterDelay = 1
)
