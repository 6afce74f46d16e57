package rc

import (
	"fmt"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// coverage counts what a node did that its counters do not tell apart,
// for functional coverage: completions by side, opcode and status, and
// the messages posted by path MTU and size.
type coverage struct {
	send     [opCount][statusCount]uint64
	recvOK   [opCount]uint64 // successful receive completions, by the op that consumed the WQE
	recvErr  [statusCount]uint64
	messages map[int]*[numSizeClasses]uint64 // by path MTU
}

// A message's size class against its path MTU: the segmentation cases
// (IBA 9.7.1: ONLY for one packet, FIRST MIDDLE... LAST for more).
const (
	sizeEmpty = iota // 0 bytes: an ONLY packet with no payload
	sizeOne          // 1 to PMTU bytes: one ONLY packet
	sizeMulti        // more: FIRST, MIDDLE..., LAST
	numSizeClasses
)

var sizeNames = [numSizeClasses]string{"empty", "one_packet", "multi_packet"}

// pmtus are the path MTUs a QP may have (Config.Validate).
var pmtus = [...]int{256, 512, 1024, 2048, 4096}

func (c *coverage) posted(pmtu int, length uint32) {
	if c.messages == nil {
		c.messages = map[int]*[numSizeClasses]uint64{}
		for _, p := range pmtus {
			c.messages[p] = new([numSizeClasses]uint64)
		}
	}
	k := sizeMulti
	switch {
	case length == 0:
		k = sizeEmpty
	case length <= uint32(pmtu):
		k = sizeOne
	}
	if m := c.messages[pmtu]; m != nil {
		m[k]++
	}
}

func (c *coverage) completed(comp Completion) {
	switch {
	case !comp.Recv:
		c.send[comp.Op][comp.Status]++
	case comp.Status == StatusSuccess:
		c.recvOK[comp.Op]++
	default:
		c.recvErr[comp.Status]++ // an error completion carries no opcode
	}
}

// sendOutcomes are the statuses a send work request of each opcode can
// complete with here. Left out: REM_ACCESS_ERR for SEND (no R_Key to
// break), RNR_RETRY_EXC_ERR for WRITE and READ (they consume no receive
// WQE, so no RNR NAK answers them), REM_OP_ERR (NAK 0x63, which no
// responder of ours sends), and the responder-side statuses.
func sendOutcomes(op Op) []Status {
	s := []Status{StatusSuccess, StatusRemoteInvalid, StatusRetryExceeded, StatusFlushed}
	if !op.isSend() {
		s = append(s, StatusRemoteAccess)
	}
	if op.isSend() || op == OpWriteImm {
		s = append(s, StatusRNRRetryExceeded)
	}
	return s
}

// recvErrors are the statuses a receive WQE completes with in error.
var recvErrors = []Status{StatusLocalLength, StatusRemoteInvalidReq, StatusRemoteAccessReq, StatusFlushed}

// Events reports the node's coverage events by name, every one it
// declares, those that never happened as 0 (so that a campaign can list
// the holes): "send.WRITE.REM_ACCESS_ERR" (a send work request's
// completion), "recv.SEND_IMM.SUCCESS" and "recv.LOC_LEN_ERR" (a receive
// WQE's), "message.pmtu1024.multi_packet" (messages posted), and the
// DCQCN reaction points' steps summed over the QPs ("dcqcn.cut",
// "dcqcn.hyper_increase"; golden/dcqcn).
func (n *Node) Events(add func(name string, count uint64)) {
	c := &n.cov
	for op := range opCount {
		for _, st := range sendOutcomes(op) {
			add(fmt.Sprintf("send.%v.%v", op, st), c.send[op][st])
		}
	}
	for _, op := range []Op{OpSend, OpSendImm, OpWriteImm} {
		add(fmt.Sprintf("recv.%v.SUCCESS", op), c.recvOK[op])
	}
	for _, st := range recvErrors {
		add(fmt.Sprintf("recv.%v", st), c.recvErr[st])
	}
	for _, p := range pmtus {
		for k, name := range sizeNames {
			var v uint64
			if m := c.messages[p]; m != nil {
				v = m[k]
			}
			add(fmt.Sprintf("message.pmtu%d.%s", p, name), v)
		}
	}
	var rp dcqcn.RPCounters
	for _, q := range n.qps {
		rp.Add(q.rp.Counters())
	}
	for _, e := range []struct {
		name string
		v    uint64
	}{
		{"cnp", rp.CNPs}, {"cut", rp.Cuts}, {"min_rate_clamp", rp.MinRateClamps}, {"alpha_decay", rp.AlphaDecays},
		{"timer_increase", rp.TimerEvents}, {"byte_counter_increase", rp.ByteEvents},
		{"fast_recovery", rp.FastRecovery}, {"additive_increase", rp.Additive}, {"hyper_increase", rp.Hyper},
		{"back_to_line_rate", rp.Recoveries},
	} {
		add("dcqcn."+e.name, e.v)
	}
}
