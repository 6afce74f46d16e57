package rc

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/roce"
)

// NodeConfig describes a node: one MAC and IPv4 address shared by its QPs,
// its clock and its congestion-control settings.
type NodeConfig struct {
	MAC     [6]byte
	IP      netip.Addr // IPv4
	ClockHz uint64     // converts the IBA's microsecond timers to cycles

	DSCP    uint8 // DSCP of data, ACK and NAK packets (sent ECT(0)), unless the QP sets its own
	CNPDSCP uint8 // DSCP of CNPs (sent Not-ECT)

	// CNPPriority is the 802.1p priority (0..7) of CNPs: a received pause
	// of that priority holds them back (README "PFC"). QPs have their own.
	CNPPriority uint8
	// DataWidth is the NIC's bits per cycle: a pause quantum (512 bit
	// times) lasts 512/DataWidth cycles. 0 means 64.
	DataWidth int

	// CNPInterval is the least number of cycles between two CNPs for one
	// QP (the notification point's rate limit); 0 sends one per CE packet.
	CNPInterval uint64
	// DCQCN is the reaction point's configuration; DCQCN.LineRate 0
	// disables rate control (the requester sends as fast as it is polled).
	DCQCN dcqcn.Config
}

// QPConfig is the context of one RC QP, as ibv_modify_qp sets it up to RTS.
type QPConfig struct {
	QPN       roce.QPN
	RemoteQPN roce.QPN
	RemoteMAC [6]byte
	RemoteIP  netip.Addr // IPv4

	SendPSN roce.PSN // first PSN the requester sends (sq_psn)
	RecvPSN roce.PSN // first PSN the responder expects (rq_psn)
	PMTU    int      // 256, 512, 1024, 2048 or 4096

	Timeout     uint8 // local ACK timeout 4.096 us * 2^Timeout; 0 disables (0..31)
	RetryCnt    uint8 // retries on timeout or NAK sequence error (0..7; 7 is 7, unlike rxe)
	RNRRetry    uint8 // retries on RNR NAK (0..7; 7 = infinite)
	MinRNRTimer uint8 // the RNR timer code this QP's responder sends (1..31; 0 = 655.36 ms)

	UDPSrcPort uint16 // per-QP flow entropy, 0xC000-0xFFFF
	Access     Access // remote operations this QP's responder allows

	// Window is the most PSNs the requester keeps unacknowledged (at most
	// 2^23 - 1 by the PSN order rule); 0 means DefaultWindow.
	Window int
	// MaxReads is the most READs the requester has outstanding and the
	// number of READ responder resources kept for duplicate replay
	// (max_rd_atomic = max_dest_rd_atomic); 0 means DefaultMaxReads.
	MaxReads int
	// SQDepth and RQDepth bound the posted work requests; 0 means
	// DefaultQueueDepth.
	SQDepth, RQDepth int

	// Priority is the 802.1p priority (0..7) of everything the QP sends,
	// responder and requester packets alike: a received pause of that
	// priority holds the QP back (README "PFC").
	Priority uint8
	// DSCP, when not 0, replaces the node's DSCP in the QP's packets, so
	// that a switch's DSCP map puts them in the QP's priority.
	DSCP uint8
	// VLAN tags every frame of the QP (IEEE 802.1Q) with VID and, as PCP,
	// Priority (its CNPs: NodeConfig.CNPPriority); DEI 0.
	VLAN bool
	VID  uint16 // 0..4095
}

// Defaults for the zero values of QPConfig.
const (
	DefaultWindow     = 1024
	DefaultMaxReads   = 16
	DefaultQueueDepth = 256
	maxWindow         = 1<<23 - 1
	qpnMask           = 1<<24 - 1
)

// AckReqInterval: the requester sets AckReq on the last packet of every
// message and on every AckReqInterval-th packet of a long one (rxe_req.c
// asks for an ACK after RXE_MAX_UNACKED_PSNS = 128; we use the issue's
// 64), or every Window/2-th when the window is smaller than 128, so that
// the window always holds a packet that will be acknowledged. The rule
// depends only on the packet's place in its message, so a retransmitted
// packet is bit-identical to the original.
const AckReqInterval = 64

// Validate reports the first bad field of c.
func (c *QPConfig) Validate() error {
	switch c.PMTU {
	case 256, 512, 1024, 2048, 4096:
	default:
		return fmt.Errorf("qp %v: path MTU %d is not 256, 512, 1024, 2048 or 4096", c.QPN, c.PMTU)
	}
	switch {
	case uint32(c.QPN) > qpnMask || uint32(c.RemoteQPN) > qpnMask:
		return fmt.Errorf("qp %v: QPN over 24 bits", c.QPN)
	case uint32(c.SendPSN) > roce.PSNMask || uint32(c.RecvPSN) > roce.PSNMask:
		return fmt.Errorf("qp %v: PSN over 24 bits", c.QPN)
	case !c.RemoteIP.Is4():
		return fmt.Errorf("qp %v: remote IP %v is not IPv4", c.QPN, c.RemoteIP)
	case c.Timeout > 31:
		return fmt.Errorf("qp %v: timeout %d over 31", c.QPN, c.Timeout)
	case c.RetryCnt > 7 || c.RNRRetry > 7:
		return fmt.Errorf("qp %v: retry_cnt and rnr_retry are 3-bit values", c.QPN)
	case c.MinRNRTimer > 31:
		return fmt.Errorf("qp %v: RNR timer code %d over 31", c.QPN, c.MinRNRTimer)
	case c.Window < 0 || c.Window > maxWindow:
		return fmt.Errorf("qp %v: window %d outside 1..%d", c.QPN, c.Window, maxWindow)
	case c.MaxReads < 0 || c.MaxReads > 255:
		return fmt.Errorf("qp %v: max reads %d outside 1..255", c.QPN, c.MaxReads)
	case c.SQDepth < 0 || c.RQDepth < 0:
		return fmt.Errorf("qp %v: negative queue depth", c.QPN)
	case c.Priority > 7:
		return fmt.Errorf("qp %v: priority %d over 7", c.QPN, c.Priority)
	case c.DSCP > 63:
		return fmt.Errorf("qp %v: DSCP %d over 6 bits", c.QPN, c.DSCP)
	case c.VID > 0xFFF:
		return fmt.Errorf("qp %v: VID %d over 12 bits", c.QPN, c.VID)
	}
	return nil
}

func (c *QPConfig) withDefaults() QPConfig {
	d := *c
	if d.Window == 0 {
		d.Window = DefaultWindow
	}
	if d.MaxReads == 0 {
		d.MaxReads = DefaultMaxReads
	}
	if d.SQDepth == 0 {
		d.SQDepth = DefaultQueueDepth
	}
	if d.RQDepth == 0 {
		d.RQDepth = DefaultQueueDepth
	}
	return d
}

// Validate reports the first bad field of c.
func (c *NodeConfig) Validate() error {
	if !c.IP.Is4() {
		return fmt.Errorf("node IP %v is not IPv4", c.IP)
	}
	if c.ClockHz == 0 {
		return errors.New("node clock frequency is 0")
	}
	if c.DSCP > 63 || c.CNPDSCP > 63 {
		return errors.New("DSCP over 6 bits")
	}
	if c.CNPPriority > 7 {
		return fmt.Errorf("CNP priority %d over 7", c.CNPPriority)
	}
	if c.DataWidth < 0 || c.DataWidth%8 != 0 {
		return fmt.Errorf("data width %d is not a whole number of bytes", c.DataWidth)
	}
	if c.DCQCN.LineRate != 0 {
		if err := c.DCQCN.Validate(); err != nil {
			return fmt.Errorf("dcqcn: %w", err)
		}
	}
	return nil
}

// TimeoutCycles converts the local ACK timeout code to cycles:
// 4.096 us * 2^code (IBA 11.2.4.2, rxe_qp.c), rounded up; 0 for code 0
// (the timer is disabled).
func TimeoutCycles(code uint8, clockHz uint64) uint64 {
	if code == 0 {
		return 0
	}
	// 4.096 us = 4096 ns; cycles = 4096 * 2^code * clockHz / 1e9.
	return ceilDiv(4096<<code, clockHz, 1_000_000_000)
}

// rnrTicks is the RNR NAK timer table of IBA table 45 (the values of rxe's
// rnrnak_usec), in units of 10 us so that every entry is exact.
var rnrTicks = [32]uint64{
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
}

// RNRCycles converts an RNR timer code to cycles, rounded up. Code 1 is
// 0.01 ms, code 31 is 491.52 ms and code 0 is 655.36 ms.
func RNRCycles(code uint8, clockHz uint64) uint64 {
	// 0.01 ms = 10 us = 10_000 ns per table unit.
	return ceilDiv(rnrTicks[code&31]*10_000, clockHz, 1_000_000_000)
}

// ceilDiv returns ceil(a*b/c) without overflow for our ranges (a*b < 2^64
// is checked by splitting on c).
func ceilDiv(a, b, c uint64) uint64 {
	q, r := a/c, a%c
	// a*b/c = q*b + r*b/c
	hi := q * b
	lo := r * b
	return hi + (lo+c-1)/c
}

// PauseWidth is the data width pause quanta are converted with:
// DataWidth, or 64 when it is 0.
func (c *NodeConfig) PauseWidth() int {
	if c.DataWidth == 0 {
		return 64
	}
	return c.DataWidth
}
