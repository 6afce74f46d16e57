package pfc

import (
	"github.com/gopacket/gopacket/layers"
)

// Problem codes reported by Validate, CheckFrame and AppendProblems.
const (
	// CodeDstMAC: the destination is not 01:80:C2:00:00:01 (PFC), or is
	// neither that nor an individual address (PAUSE).
	CodeDstMAC = "dst-mac"
	// CodeEtherType: the Ethernet type is not 0x8808.
	CodeEtherType = "ethertype"
	// CodeUnknownOpcode: the opcode is neither PFC nor PAUSE.
	CodeUnknownOpcode = "unknown-opcode"
	// CodeEnableReserved: the reserved high byte of the PFC priority-enable
	// vector is not zero.
	CodeEnableReserved = "enable-reserved"
	// CodePadNonZero: a pad byte after the opcode parameters is not zero.
	CodePadNonZero = "pad-nonzero"
	// CodeShortFrame: the frame is shorter than FrameLen (60) bytes.
	CodeShortFrame = "short-frame"
)

// Problem is one rule violation found in a decoded MAC Control frame.
type Problem struct {
	Code    string // short machine-readable code, one of the Code* constants
	Message string // human-readable explanation
}

// String returns "code: message".
func (p Problem) String() string { return p.Code + ": " + p.Message }

// The problems are fixed values, so reporting one never allocates a string.
var (
	problemDstPFC         = Problem{CodeDstMAC, "PFC frame destination must be 01:80:C2:00:00:01"}
	problemDstPause       = Problem{CodeDstMAC, "PAUSE frame destination must be 01:80:C2:00:00:01 or an individual (unicast) address"}
	problemEtherType      = Problem{CodeEtherType, "MAC control frame EtherType must be 0x8808"}
	problemUnknownOpcode  = Problem{CodeUnknownOpcode, "MAC control opcode is neither PFC (0x0101) nor PAUSE (0x0001)"}
	problemEnableReserved = Problem{CodeEnableReserved, "reserved high byte of the PFC priority-enable vector must be zero"}
	problemPadNonZero     = Problem{CodePadNonZero, "pad after the MAC control parameters must be all zero"}
	problemShortFrame     = Problem{CodeShortFrame, "MAC control frame is shorter than 60 bytes (without FCS)"}
)

// Validate returns every rule violation of a decoded frame that can be seen
// without the Ethernet header (opcode, reserved enable bits, pad, length),
// or nil if there is none. Use CheckFrame to include the Ethernet header.
func (p *PFC) Validate() []Problem { return AppendProblems(nil, nil, p) }

// CheckFrame returns every rule violation of a decoded frame, including the
// destination MAC and EtherType of eth, or nil if there is none.
func CheckFrame(eth *layers.Ethernet, p *PFC) []Problem { return AppendProblems(nil, eth, p) }

// AppendProblems appends the problems of CheckFrame to dst and returns the
// extended slice; with a reused dst it does not allocate. eth may be nil to
// skip the Ethernet header checks. p must come from DecodeFromBytes: the
// length and pad checks look at p.Contents and p.Pad.
//
// Rules: PFC frames must be sent to 01:80:C2:00:00:01; PAUSE frames to that
// address or to an individual address (IEEE 802.3 annex 31B); the EtherType
// is 0x8808; the opcode is PFC or PAUSE; the reserved byte of the PFC
// enable vector is zero; the pad is zero; the frame is at least 60 bytes.
// Frames with unknown opcodes are only checked for EtherType, opcode and
// length, since their parameters are unknown.
func AppendProblems(dst []Problem, eth *layers.Ethernet, p *PFC) []Problem {
	if eth != nil {
		if eth.EthernetType != EtherType {
			dst = append(dst, problemEtherType)
		}
		isCtrl := len(eth.DstMAC) == 6 && [6]byte(eth.DstMAC) == dstMAC
		switch p.Opcode {
		case OpcodePFC:
			if !isCtrl {
				dst = append(dst, problemDstPFC)
			}
		case OpcodePause:
			if !isCtrl && (len(eth.DstMAC) != 6 || eth.DstMAC[0]&0x01 != 0) {
				dst = append(dst, problemDstPause)
			}
		}
	}
	if !p.Opcode.Known() {
		dst = append(dst, problemUnknownOpcode)
	} else {
		if p.EnableVector.Reserved() != 0 {
			dst = append(dst, problemEnableReserved)
		}
		for _, c := range p.Pad {
			if c != 0 {
				dst = append(dst, problemPadNonZero)
				break
			}
		}
	}
	if len(p.Contents) < ControlLen {
		dst = append(dst, problemShortFrame)
	}
	return dst
}
