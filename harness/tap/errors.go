package tap

import (
	"errors"
	"fmt"
)

// Errors from Open, Inspect and Delete, wrapped in a *DeviceError (or, for
// ErrInvalidConfig and ErrUnsupported, a plain wrapped error). Match them
// with errors.Is.
var (
	ErrUnsupported   = errors.New("TAP devices are only supported on Linux")
	ErrInvalidConfig = errors.New("invalid config")
	ErrNotFound      = errors.New("no such device in this network namespace")
	ErrNotTAP        = errors.New("not a TAP device")
	ErrExists        = errors.New("device already exists")
	ErrIncompatible  = errors.New("existing TAP does not match the config")
	ErrInUse         = errors.New("TAP is open in another process")
	ErrPermission    = errors.New("permission denied")
)

// DeviceError is why Open, Inspect or Delete refused or failed on a named
// device.
type DeviceError struct {
	Name   string
	Kind   string // the device's kind as in Info.Kind; "" if it does not exist
	Err    error  // one of the Err* values above, or a system error
	Detail string // what to do about it, if anything
}

func (e *DeviceError) Error() string {
	var msg string
	switch e.Err {
	case ErrNotTAP:
		msg = fmt.Sprintf("tap: refusing %q: it is a %s device, not a TAP", e.Name, e.Kind)
	case ErrNotFound:
		msg = fmt.Sprintf("tap: no device %q in this network namespace", e.Name)
	case ErrExists:
		msg = fmt.Sprintf("tap: %q already exists (a %s device)", e.Name, e.Kind)
	default:
		msg = fmt.Sprintf("tap: %q: %v", e.Name, e.Err)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *DeviceError) Unwrap() error { return e.Err }

// Reason says why a frame was not delivered.
type Reason uint8

const (
	// ReasonRunt: shorter than the 14-byte Ethernet header. TAP frames
	// carry no padding, so 14 to 59 bytes are fine.
	ReasonRunt Reason = iota + 1
	// ReasonOversize: longer than MTU + header + one VLAN tag.
	ReasonOversize
	// ReasonShortBuffer: the frame was read but the caller's buffer could
	// not hold it.
	ReasonShortBuffer
	// ReasonIO: the kernel refused the read or write.
	ReasonIO
)

func (r Reason) String() string {
	switch r {
	case ReasonRunt:
		return "runt"
	case ReasonOversize:
		return "oversize"
	case ReasonShortBuffer:
		return "short buffer"
	case ReasonIO:
		return "I/O error"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Dir is the direction of a frame, seen from this side of the TAP.
type Dir uint8

const (
	// DirRead: the host sent the frame out of its interface; TAP.Read
	// returns it.
	DirRead Dir = iota + 1
	// DirWrite: TAP.Write hands the frame to the host.
	DirWrite
)

func (d Dir) String() string {
	switch d {
	case DirRead:
		return "read"
	case DirWrite:
		return "write"
	}
	return fmt.Sprintf("Dir(%d)", uint8(d))
}

// Sentinels a *FrameError matches with errors.Is, one per Reason that is
// about the frame itself. A ReasonIO error matches its system error.
var (
	ErrRunt        = errors.New("runt frame")
	ErrOversize    = errors.New("oversize frame")
	ErrShortBuffer = errors.New("buffer too small for frame")
)

// FrameError reports a frame that was counted and not delivered. The TAP
// stays usable: read or write the next frame.
type FrameError struct {
	Device string
	Dir    Dir
	Reason Reason
	Len    int   // the frame's length
	Limit  int   // the bound it broke (0 for ReasonIO)
	Err    error // the system error for ReasonIO
}

func (e *FrameError) Error() string {
	switch e.Reason {
	case ReasonRunt:
		return fmt.Sprintf("tap %s: %s: runt frame of %d bytes, at least %d needed", e.Device, e.Dir, e.Len, e.Limit)
	case ReasonOversize:
		return fmt.Sprintf("tap %s: %s: oversize frame of %d bytes, limit %d", e.Device, e.Dir, e.Len, e.Limit)
	case ReasonShortBuffer:
		return fmt.Sprintf("tap %s: %s: frame of %d bytes does not fit a %d-byte buffer", e.Device, e.Dir, e.Len, e.Limit)
	}
	return fmt.Sprintf("tap %s: %s: frame of %d bytes: %v", e.Device, e.Dir, e.Len, e.Err)
}

func (e *FrameError) Unwrap() error { return e.Err }

func (e *FrameError) Is(target error) bool {
	switch e.Reason {
	case ReasonRunt:
		return target == ErrRunt
	case ReasonOversize:
		return target == ErrOversize
	case ReasonShortBuffer:
		return target == ErrShortBuffer
	}
	return false
}
