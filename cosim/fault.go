// A model that dies, falls silent or breaks the protocol: how the Model
// notices at once, and how each such failure becomes one clear error.

package cosim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// LastOutput returns the model's last output lines, oldest first (nil for
// a dialed model).
func (m *Model) LastOutput() []string {
	if m.out == nil {
		return nil
	}
	return m.out.Lines()
}

// watch reaps the process and interrupts any blocking operation, so that
// a model's death is reported at once, not at the next deadline. It
// waits exitDrain first: the dead process's end of the socket is closed,
// so a read in progress gets what the model sent last (a truncated message
// is a protocol error, not just an exit) and then EOF on its own; the kick
// is for a socket something else still holds open.
func (m *Model) watch() {
	m.cmd.Wait()
	m.state = m.cmd.ProcessState
	close(m.exited)
	time.Sleep(exitDrain)
	m.kick()
}

func (m *Model) exitedNow() bool {
	if m.exited == nil {
		return false
	}
	select {
	case <-m.exited:
		return true
	default:
		return false
	}
}

// waitExit waits up to d for the process to be reaped.
func (m *Model) waitExit(d time.Duration) bool {
	if m.exited == nil {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-m.exited:
		return true
	case <-t.C:
		return false
	}
}

func (m *Model) killProc() {
	if m.cmd != nil && !m.exitedNow() {
		killGroup(m.cmd.Process)
	}
}

// kick makes the blocking operation in progress, if any, fail at once,
// and with it the writing of pipelined windows.
func (m *Model) kick() {
	m.kmu.Lock()
	defer m.kmu.Unlock()
	if m.active {
		m.conn.SetDeadline(aLongTimeAgo)
		m.wq.abort()
	}
}

// begin arms the deadline of a blocking operation bounded by d and ctx;
// the returned func disarms it.
func (m *Model) begin(ctx context.Context, d time.Duration) (end func()) {
	return m.arm(ctx, d, m.conn.SetDeadline)
}

// beginRead is begin for a read alone: the writer of pipelined windows
// keeps its own deadline.
func (m *Model) beginRead(ctx context.Context, d time.Duration) (end func()) {
	return m.arm(ctx, d, m.conn.SetReadDeadline)
}

func (m *Model) arm(ctx context.Context, d time.Duration, set func(time.Time) error) (end func()) {
	dl := time.Now().Add(d)
	m.timeout, m.byCtx = d, false
	if cd, ok := ctx.Deadline(); ok && cd.Before(dl) {
		dl, m.byCtx = cd, true
	}
	m.kmu.Lock()
	m.gen++
	gen := m.gen
	m.active = true
	set(dl)
	switch {
	case m.closing.Load():
		m.conn.SetDeadline(aLongTimeAgo)
		m.wq.abort()
	case m.exitedNow() && time.Now().Add(exitDrain).Before(dl):
		set(time.Now().Add(exitDrain)) // read what it sent before dying, then stop
	}
	m.kmu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		m.kmu.Lock()
		defer m.kmu.Unlock()
		if m.active && m.gen == gen {
			m.conn.SetDeadline(aLongTimeAgo)
			m.wq.abort()
		}
	})
	return func() {
		stop()
		m.kmu.Lock()
		m.active = false
		m.kmu.Unlock()
	}
}

func (m *Model) status() string {
	if m.cmd == nil {
		return ""
	}
	if m.exitedNow() {
		return "exited: " + m.state.String()
	}
	if s := procState(m.pid); s != "" {
		return "running, " + s
	}
	return "running"
}

func (m *Model) modelError(op string, err error) *ModelError {
	me := &ModelError{Model: m.name, Op: op, Err: err}
	if m.cmd != nil {
		me.Pid = m.pid
		me.Status = m.status()
		me.LastOutput = m.out.Lines()
	}
	return me
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// classify turns the raw error of a blocking operation into its cause:
// the process's exit, ctx, Close, a timeout, the peer closing the
// connection; protocol and remote errors pass through.
func (m *Model) classify(ctx context.Context, err error) error {
	var (
		pe *ProtocolError
		re *RemoteError
	)
	switch {
	case errors.As(err, &pe):
		if errors.Is(err, io.ErrUnexpectedEOF) {
			m.waitExit(exitGrace) // likely dying: let the status and output settle
		}
		return err
	case errors.As(err, &re):
		m.waitExit(exitGrace)
		return err
	case m.exitedNow():
		return &ExitError{State: m.state}
	case m.closing.Load():
		return ErrClosed
	case isTimeout(err):
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if m.byCtx {
			return context.DeadlineExceeded
		}
		if m.waitExit(0) {
			return &ExitError{State: m.state}
		}
		m.hung = true
		return fmt.Errorf("%w: no answer within %v", ErrTimeout, m.timeout)
	default: // EOF, connection reset, broken pipe
		if m.waitExit(exitGrace) {
			return &ExitError{State: m.state}
		}
		if errors.Is(err, io.EOF) {
			return ErrConnClosed
		}
		return err
	}
}

// sentError looks, briefly, for an ERROR the model sent before it stopped
// reading: a write that failed because the model closed is better
// explained by the model's own words.
func (m *Model) sentError(err error) error {
	if isTimeout(err) || m.closing.Load() {
		return err
	}
	m.conn.SetReadDeadline(time.Now().Add(tellTimeout))
	for {
		if m.dec.Read(&m.msg) != nil {
			return err
		}
		if m.msg.Type == MsgError {
			return m.remote(&m.msg)
		}
	}
}

// fail records a failure of op: the Model becomes unusable. A peer that
// broke the protocol is told so with a best-effort ERROR.
func (m *Model) fail(ctx context.Context, op string, err error) error {
	err = m.classify(ctx, err)
	m.wq.abort() // a pipelined window still going out is of no use now
	var pe *ProtocolError
	if errors.As(err, &pe) && !errors.Is(err, io.ErrUnexpectedEOF) {
		code := uint32(ErrCodeProtocol)
		if errors.Is(err, ErrVersion) {
			code = ErrCodeVersion
		}
		m.conn.SetWriteDeadline(time.Now().Add(tellTimeout))
		m.enc.Reset()
		m.enc.Error(m.cycle, code, pe.Reason)
		m.enc.Flush()
		// A model program exits on ERROR; until it has, what it printed
		// before the bad bytes may still be in the pipe, and the report
		// must show it. Bounded: a peer that stays up costs exitGrace.
		m.waitExit(exitGrace)
	}
	me := m.modelError(op, err)
	m.broken = me
	return me
}

func (m *Model) perr(t MsgType, format string, args ...any) error {
	return &ProtocolError{Model: m.name, Msg: t, Offset: m.dec.Offset(), Reason: fmt.Sprintf(format, args...)}
}

func (m *Model) remote(msg *Msg) error {
	return &RemoteError{Code: msg.Error.Code, Cycle: msg.Cycle, Text: msg.Error.Text}
}

// usable reports why the Model cannot run op, if it cannot.
func (m *Model) usable(op string) error {
	switch {
	case m.closed || m.closing.Load():
		return &ModelError{Model: m.name, Op: op, Err: ErrClosed}
	case m.broken != nil:
		return m.broken
	}
	return nil
}
