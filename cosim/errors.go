package cosim

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrTimeout: the model did not answer (or did not take our bytes)
	// within the configured timeout. The model may be hung or stopped.
	ErrTimeout = errors.New("timeout")
	// ErrVersion: the peer speaks another protocol version.
	ErrVersion = errors.New("protocol version mismatch")
	// ErrClosed: the Model was closed (possibly while an operation ran).
	ErrClosed = errors.New("model closed")
	// ErrConnClosed: the model closed its end of the connection while its
	// process (if we know of one) kept running.
	ErrConnClosed = errors.New("connection closed by the model")
)

// ProtocolError reports bytes that break the protocol: an unknown message
// type, a body length outside the type's bounds, an inconsistent text or
// data length, unknown flag bits, a version mismatch, a message cut short
// by EOF, or a well-formed message that is wrong at this point of the
// conversation (a DONE for the wrong cycle, an ACCEPT for a frame never
// sent). After a ProtocolError the stream is out of step and the
// connection is unusable.
type ProtocolError struct {
	Model  string  // the peer's name ("" when unknown)
	Msg    MsgType // the message concerned; 0 when its header could not be read
	Offset int64   // stream offset of the message's header
	Reason string
	Err    error // the cause when there is one: io.ErrUnexpectedEOF, ErrVersion; else nil
}

func (e *ProtocolError) Error() string {
	// No "cosim: " prefix: the command of that name prints its own, and
	// the model's name says where the error is.
	var b strings.Builder
	if e.Model != "" {
		fmt.Fprintf(&b, "model %q: ", e.Model)
	}
	b.WriteString("protocol error")
	if e.Msg != 0 {
		fmt.Fprintf(&b, " in %s", e.Msg)
	}
	fmt.Fprintf(&b, " at byte %d: %s", e.Offset, e.Reason)
	return b.String()
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// RemoteError is an ERROR message received from the model: the RTL hit an
// assertion or $error, or the model rejected our messages. The model closes
// the connection after sending it.
type RemoteError struct {
	Code  uint32 // ErrCodeProtocol, ErrCodeModel, ...
	Cycle uint64 // the cycle stamp of the ERROR message
	Text  string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("model sent ERROR %s at cycle %d: %s", ErrorCodeName(e.Code), e.Cycle, e.Text)
}

// ExitError reports that the model's process ended while we needed it.
type ExitError struct {
	State *os.ProcessState // how it ended: exit status or signal
}

func (e *ExitError) Error() string {
	return "model process exited (" + e.State.String() + ")"
}

// ModelError is what every Model method returns on failure. It names the
// model and the operation, wraps the cause (a *ProtocolError, *RemoteError,
// *ExitError, ErrTimeout, ErrConnClosed, a context error or an I/O error;
// use errors.As / errors.Is) and carries the last lines the model printed.
// Error() is multi-line: the first line is the summary, then the process
// status and the model's last output, indented.
type ModelError struct {
	Model      string
	Op         string // what we were doing or waiting for, e.g. "step to cycle 1200: waiting for DONE"
	Err        error
	Pid        int      // the model's process id; 0 for a model reached with Dial
	Status     string   // "exited: signal: killed", "running, state T (stopped)"; "" when unknown
	LastOutput []string // the model's last stdout/stderr lines, oldest first; nil for Dial
}

func (e *ModelError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q: %s: ", e.Model, e.Op)
	var pe *ProtocolError
	if errors.As(e.Err, &pe) && pe == e.Err {
		// Do not repeat "model ..." from the protocol error.
		b.WriteString("protocol error")
		if pe.Msg != 0 {
			fmt.Fprintf(&b, " in %s", pe.Msg)
		}
		fmt.Fprintf(&b, " at byte %d: %s", pe.Offset, pe.Reason)
	} else {
		b.WriteString(e.Err.Error())
	}
	if e.Pid != 0 && e.Status != "" {
		fmt.Fprintf(&b, "\n    process %d: %s", e.Pid, e.Status)
	}
	if e.Pid != 0 {
		if len(e.LastOutput) == 0 {
			b.WriteString("\n    last output: (none)")
		} else {
			fmt.Fprintf(&b, "\n    last output (%d lines):", len(e.LastOutput))
			for _, l := range e.LastOutput {
				b.WriteString("\n    | ")
				b.WriteString(l)
			}
		}
	}
	return b.String()
}

func (e *ModelError) Unwrap() error { return e.Err }
