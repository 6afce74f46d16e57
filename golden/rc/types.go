package rc

import (
	"fmt"

	"github.com/rocesim/cosim/golden/roce"
)

// Op is the operation of a send work request.
type Op uint8

const (
	OpSend     Op = iota // SEND
	OpSendImm            // SEND with immediate
	OpWrite              // RDMA WRITE
	OpWriteImm           // RDMA WRITE with immediate (consumes a receive WQE at the target)
	OpRead               // RDMA READ
	opCount
)

var opNames = [opCount]string{"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ"}

func (o Op) String() string {
	if o < opCount {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

func (o Op) hasImm() bool  { return o == OpSendImm || o == OpWriteImm }
func (o Op) isSend() bool  { return o == OpSend || o == OpSendImm }
func (o Op) isWrite() bool { return o == OpWrite || o == OpWriteImm }

// WorkRequest is a send work request posted by the host (ibv_post_send with
// every WR signalled).
type WorkRequest struct {
	ID         uint64
	Op         Op
	LocalAddr  uint64 // SEND/WRITE: source; READ: destination
	Length     uint32 // bytes, 0 to MaxMessage
	RemoteAddr uint64 // WRITE/READ: virtual address at the target (absolute, as rxe)
	RKey       uint32 // WRITE/READ
	Imm        uint32 // SEND_IMM/WRITE_IMM
}

// RecvRequest is a receive buffer posted by the host (ibv_post_recv).
type RecvRequest struct {
	ID     uint64
	Addr   uint64
	Length uint32
}

// MaxMessage is the largest message a work request may carry (1 MiB).
const MaxMessage = 1 << 20

// Status is a completion status (the ibv_wc_status values we produce).
type Status uint8

const (
	StatusSuccess          Status = iota
	StatusLocalLength             // receive buffer too small for the SEND
	StatusRemoteInvalid           // NAK 0x61 received
	StatusRemoteAccess            // NAK 0x62 received
	StatusRemoteOp                // NAK 0x63 (or a reserved NAK code) received
	StatusRetryExceeded           // retry_cnt exhausted
	StatusRNRRetryExceeded        // rnr_retry exhausted
	StatusFlushed                 // flushed: the QP went to the error state
	StatusRemoteInvalidReq        // responder side: the request broke a rule (we sent NAK 0x61)
	StatusRemoteAccessReq         // responder side: R_Key or range violation (we sent NAK 0x62)
	statusCount
)

var statusNames = [statusCount]string{
	"SUCCESS", "LOC_LEN_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
	"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "WR_FLUSH_ERR", "INV_REQ_RECEIVED", "ACCESS_ERR_RECEIVED",
}

func (s Status) String() string {
	if s < statusCount {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Completion is a work completion. Send completions carry the posted WR's
// ID and Op; receive completions (Recv true) the receive WR's ID, the bytes
// received and the immediate, if any.
type Completion struct {
	Cycle  uint64
	QPN    roce.QPN
	Recv   bool
	ID     uint64
	Op     Op
	Status Status
	Bytes  uint32
	HasImm bool
	Imm    uint32
}

func (c Completion) String() string {
	kind := "send"
	if c.Recv {
		kind = "recv"
	}
	s := fmt.Sprintf("cycle %d qp %v %s wr %d %v %v %d B", c.Cycle, c.QPN, kind, c.ID, c.Op, c.Status, c.Bytes)
	if c.HasImm {
		s += fmt.Sprintf(" imm 0x%08x", c.Imm)
	}
	return s
}

// Access is a set of remote access rights.
type Access uint8

const (
	AccessRemoteWrite Access = 1 << iota
	AccessRemoteRead
)

// MemoryRegion is a registered region of host memory that remote peers
// reach with its R_Key.
type MemoryRegion struct {
	Base   uint64
	Length uint64
	RKey   uint32
	Access Access
}

// contains reports whether [va, va+n) lies inside the region (n > 0).
func (m *MemoryRegion) contains(va uint64, n uint32) bool {
	end := va + uint64(n)
	return va >= m.Base && end >= va && end <= m.Base+m.Length
}
