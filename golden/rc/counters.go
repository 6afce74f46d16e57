package rc

// Counter names one event the model counts: every packet it drops, every
// error path and every recovery action. A node keeps one set of its own
// (drops before a QP is known) and one per QP; Node.Counters adds them up.
type Counter uint8

const (
	// Receive, before a QP is known (node counters).
	RxNotRoCE      Counter = iota // not an IPv4/UDP 4791 frame
	RxMalformed                   // truncated or inconsistent lengths
	RxBadICRC                     // ICRC wrong: dropped silently (IBA annex A17.3.3)
	RxWrongAddress                // MAC or IP not this node's
	RxBadHeader                   // TVer not 0, P_Key not the default, not RC
	RxUnknownQP                   // DestQP not set up
	RxPackets                     // RoCEv2 packets accepted for a QP (QP counter)
	RxQPError                     // dropped: the QP is in the error state
	RxCE                          // CE-marked packets seen (notification point)
	TxCNP                         // CNPs sent
	CNPSuppressed                 // CE packets that found the CNP interval running
	RxCNP                         // CNPs received (reaction point)

	// Responder.
	RespOutOfSequence  // PSN ahead of expected
	RespNAKSeq         // NAK 0x60 sent (once per gap)
	RespGapSilent      // later packets of a gap dropped without a NAK
	RespDuplicate      // duplicate SEND/WRITE re-ACKed
	RespDuplicateRead  // duplicate READ replayed
	RespDuplicateDrop  // duplicate READ with no matching resource or not a subset of it
	RespRNR            // RNR NAK sent: no receive WQE
	RespInvalidRequest // NAK 0x61 sent: opcode sequence, opcode not allowed, length
	RespAccessError    // NAK 0x62 sent: R_Key, rights or range
	RespACK            // ACKs sent (AckReq and duplicates)
	RespReadResponses  // READ response packets sent, replays included

	// Requester.
	TxPackets          // request packets sent, retransmissions included
	TxRetransmits      // request packets sent again
	ReqStaleAck        // ACK/NAK/response older than the oldest unacknowledged PSN
	ReqBogusAck        // ACK/NAK for a PSN never sent
	ReqDuplicateResp   // READ response already received
	ReqBadResponse     // READ response with the wrong opcode or length for its place
	ReqRetryNAK        // go-back-N on NAK 0x60
	ReqRetryTimeout    // go-back-N on local ACK timeout
	ReqRetryReadGap    // go-back-N on a missing READ response (implied NAK)
	ReqRetryIgnored    // NAK or gap ignored: a retry from that PSN is already under way
	ReqRNRWait         // RNR NAK received: waited and retried
	ReqRetryExceeded   // retry_cnt exhausted: error completion
	ReqRNRExceeded     // rnr_retry exhausted: error completion
	ReqRemoteError     // NAK 0x61/0x62/0x63 received: error completion
	CompletionsSuccess // completions with status SUCCESS (send and receive)
	CompletionsError   // completions with any other status, flushes included
	numCounters
)

var counterNames = [numCounters]string{
	"rx_not_roce", "rx_malformed", "rx_bad_icrc", "rx_wrong_address", "rx_bad_header", "rx_unknown_qp",
	"rx_packets", "rx_qp_error", "rx_ce", "tx_cnp", "cnp_suppressed", "rx_cnp",
	"resp_out_of_sequence", "resp_nak_seq", "resp_gap_silent", "resp_duplicate", "resp_duplicate_read",
	"resp_duplicate_drop", "resp_rnr_nak", "resp_invalid_request", "resp_access_error", "resp_ack",
	"resp_read_responses",
	"tx_packets", "tx_retransmits", "req_stale_ack", "req_bogus_ack", "req_duplicate_response",
	"req_bad_response", "req_retry_nak", "req_retry_timeout", "req_retry_read_gap", "req_retry_ignored",
	"req_rnr_wait", "req_retry_exceeded", "req_rnr_exceeded", "req_remote_error",
	"completions_success", "completions_error",
}

func (c Counter) String() string {
	if c < numCounters {
		return counterNames[c]
	}
	return "counter?"
}

// NumCounters is the number of counters.
const NumCounters = int(numCounters)

// Counters holds one value per Counter.
type Counters [numCounters]uint64

// Each calls f with every counter's name and value, in Counter order.
func (c *Counters) Each(f func(name string, v uint64)) {
	for i, v := range c {
		f(counterNames[i], v)
	}
}

// Map returns the non-zero counters by name.
func (c *Counters) Map() map[string]uint64 {
	m := map[string]uint64{}
	for i, v := range c {
		if v != 0 {
			m[counterNames[i]] = v
		}
	}
	return m
}

func (c *Counters) add(o *Counters) {
	for i := range c {
		c[i] += o[i]
	}
}
