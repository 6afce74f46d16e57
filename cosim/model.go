package cosim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for Config and Timeouts.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultStepTimeout  = 10 * time.Second
	DefaultCloseTimeout = 5 * time.Second
	DefaultOutputLines  = 50
)

const (
	// exitGrace: after an EOF or an ERROR from a model process, how long
	// to wait for the process to end, so that the error can carry its exit
	// status and its final output.
	exitGrace = 500 * time.Millisecond
	// exitDrain: how long a read may go on after the model's process
	// exited, to take in what it sent before it died.
	exitDrain = 200 * time.Millisecond
	// reapTimeout: how long to wait for a killed process to be reaped.
	reapTimeout = 2 * time.Second
	// tellTimeout bounds the best-effort ERROR we send a misbehaving peer.
	tellTimeout = 100 * time.Millisecond
	// maxSocketPath is the room in sockaddr_un.sun_path (108 with the NUL).
	maxSocketPath = 107
)

var aLongTimeAgo = time.Unix(1, 0)

// Timeouts bound every blocking operation of a Model. Zero fields take the
// defaults.
type Timeouts struct {
	// Start bounds process start to connected socket (Start), the connect
	// (Dial) and the wait for HELLO (Handshake). Default 10 s.
	Start time.Duration
	// Step bounds one window: sending it and reading the reply up to DONE.
	// Default 10 s.
	Step time.Duration
	// Close bounds the answer to GOODBYE plus the process's exit; after it
	// the process is killed. Default 5 s.
	Close time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Start <= 0 {
		t.Start = DefaultStartTimeout
	}
	if t.Step <= 0 {
		t.Step = DefaultStepTimeout
	}
	if t.Close <= 0 {
		t.Close = DefaultCloseTimeout
	}
	return t
}

// Config describes a model process for Start.
type Config struct {
	// Name is the instance name ("sw0", "nic1"): it labels every error and
	// names the socket, <private dir>/<Name>.sock. Letters, digits, '.',
	// '_' and '-' only.
	Name string
	Path string   // the model binary
	Args []string // arguments after "--socket <path>"
	Env  []string // the process environment; nil inherits ours
	Dir  string   // working directory; "" is ours

	// SocketDir is where the private socket directory is made; "" is
	// os.TempDir(). Unix socket paths are short (107 bytes).
	SocketDir string
	// Output, when set, receives a copy of everything the model writes to
	// stdout and stderr (a log file, os.Stderr).
	Output io.Writer
	// OutputLines is how many of the model's last output lines errors
	// carry; default 50.
	OutputLines int
	// SharedMemory sends the byte stream through two rings in memory shared
	// with the model (shm_linux.go), the socket carrying only doorbells.
	// The model gets "--ring-fd 3"; one that does not map the memory (every
	// model built on sim/ does) talks through the socket as without it.
	// On Linux only; elsewhere it is ignored.
	SharedMemory bool

	Timeouts
}

// Model is the connection to one model process (Start) or to a model on
// another host (Dial). The conversation is: Handshake once, Step per
// window (or Send and Recv, pipelined), Close at the end.
//
// Handshake, Step, Send, Recv and Close must not be called concurrently
// with one another, except that Close may be called from another goroutine
// to abort a running Handshake, Step or Recv, which then fails with
// ErrClosed.
// Different Models are independent and are meant to be stepped in
// parallel.
//
// After any failure of Handshake or Step the Model is unusable: later
// calls return the same error; call Close to release it.
type Model struct {
	name string
	t    Timeouts

	conn net.Conn
	enc  *Encoder
	dec  *Decoder
	msg  Msg

	// The process, for models made by Start; cmd is nil after Dial.
	cmd    *exec.Cmd
	pid    int
	dir    string // private socket directory
	sock   string
	out    *lineRing
	exited chan struct{}    // closed once the process has been reaped
	state  *os.ProcessState // set before exited is closed

	// kmu guards the interruption of a blocking operation ("kicking" the
	// connection's deadline into the past) by ctx, process exit or Close.
	kmu    sync.Mutex
	active bool
	gen    uint64

	closing atomic.Bool
	mu      sync.Mutex // serialises Handshake, Step, Close

	hello   Hello
	shook   bool
	cycle   uint64
	broken  error
	hung    bool // broken by a timeout: kill at Close without waiting
	closed  bool
	timeout time.Duration // of the current operation
	byCtx   bool          // the current deadline is ctx's

	// Conversation state, per port.
	inSeq   []uint32     // next input seq
	lastIn  []uint64     // arrival of the last frame sent
	pending []cycleQueue // arrival cycles of frames sent and not yet accepted
	outSeq  []uint32     // next output seq
	outLast []uint64     // first-beat cycle of the last output frame + 1 (0: none yet)
	tmpLast []uint64     // scratch for checkWindow

	// Pipelined windows (pipe.go): the windows sent and not yet
	// answered, oldest first, and the writer of what Send encodes.
	sent    uint64 // the Target of the last window sent: where the next one starts
	flights []*flight
	spare   []*flight
	wq      *writeQueue
}

func validName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Start launches the model binary cfg.Path with "--socket <sock>" followed
// by cfg.Args, where <sock> is <Name>.sock in a fresh private directory
// (mode 0700, removed by Close), captures its stdout and stderr, waits for
// the model to listen on the socket and connects. It gives up after
// cfg.Start (or when ctx ends), or as soon as the process exits, and then
// kills the process and cleans up. ctx bounds only the start: the model
// lives until Close.
func Start(ctx context.Context, cfg Config) (*Model, error) {
	if !validName(cfg.Name) {
		return nil, &ModelError{Model: cfg.Name, Op: "start", Err: errors.New("bad model name: want letters, digits, '.', '_', '-'")}
	}
	if cfg.Path == "" {
		return nil, &ModelError{Model: cfg.Name, Op: "start", Err: errors.New("no model binary path")}
	}
	lines := cfg.OutputLines
	if lines <= 0 {
		lines = DefaultOutputLines
	}
	dir, err := os.MkdirTemp(cfg.SocketDir, "cosim-")
	if err != nil {
		return nil, &ModelError{Model: cfg.Name, Op: "start: socket directory", Err: err}
	}
	sock := filepath.Join(dir, cfg.Name+".sock")
	if len(sock) > maxSocketPath {
		os.RemoveAll(dir)
		return nil, &ModelError{Model: cfg.Name, Op: "start", Err: fmt.Errorf("socket path %s is longer than %d bytes; set Config.SocketDir to a shorter directory", sock, maxSocketPath)}
	}
	m := &Model{
		name:   cfg.Name,
		t:      cfg.Timeouts.withDefaults(),
		dir:    dir,
		sock:   sock,
		out:    newLineRing(lines, cfg.Output),
		exited: make(chan struct{}),
	}
	args := []string{"--socket", sock}
	var mem *shm
	if cfg.SharedMemory && shmSupported {
		if mem, err = newShm(cfg.Name); err != nil {
			os.RemoveAll(dir)
			return nil, &ModelError{Model: cfg.Name, Op: "start", Err: err}
		}
		args = append(args, "--ring-fd", "3") // the first of ExtraFiles
	}
	cmd := exec.Command(cfg.Path, append(args, cfg.Args...)...)
	cmd.Env = cfg.Env
	cmd.Dir = cfg.Dir
	cmd.Stdout = m.out // the same writer: one pipe, one copying goroutine, order kept
	cmd.Stderr = m.out
	cmd.WaitDelay = time.Second // a grandchild holding the pipes must not stall Wait
	setProcAttr(cmd)
	if mem != nil {
		cmd.ExtraFiles = []*os.File{mem.file}
	}
	err = cmd.Start()
	if mem != nil {
		mem.file.Close() // the model has its own
	}
	if err != nil {
		if mem != nil {
			mem.release()
		}
		os.RemoveAll(dir)
		return nil, &ModelError{Model: m.name, Op: "start " + cfg.Path, Err: err}
	}
	m.cmd, m.pid = cmd, cmd.Process.Pid
	go m.watch()

	conn, err := m.connect(ctx)
	if err == nil && mem != nil {
		if !mem.attached() {
			mem.release() // the model talks through the socket
			mem = nil
		} else {
			sc, serr := newShmConn(conn, mem)
			if serr != nil {
				conn.Close()
			}
			conn, err = sc, serr
		}
	}
	if err != nil {
		if mem != nil {
			mem.release()
		}
		me := m.modelError(fmt.Sprintf("start: connecting to %s", sock), err)
		m.killProc()
		m.waitExit(reapTimeout)
		if me.Status == "" || strings.HasPrefix(me.Status, "running") {
			me.Status += "; killed"
		}
		os.RemoveAll(dir)
		return nil, me
	}
	m.setConn(conn)
	// Connected, the socket's name is no longer needed: removing its
	// directory now leaves nothing behind even if this process is killed.
	os.RemoveAll(dir)
	return m, nil
}

// connect dials the socket until the model listens, the process exits,
// ctx ends or the start timeout passes.
func (m *Model) connect(ctx context.Context) (net.Conn, error) {
	deadline := time.Now().Add(m.t.Start)
	wait := 2 * time.Millisecond
	var last error
	for {
		d := net.Dialer{Deadline: deadline}
		conn, err := d.DialContext(ctx, "unix", m.sock)
		if err == nil {
			return conn, nil
		}
		if last == nil || !isTimeout(err) {
			last = err // a dial cut by the deadline says less than the one before
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w: no socket to connect to after %v (last try: %v)", ErrTimeout, m.t.Start, last)
		}
		timer := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-m.exited:
			timer.Stop()
			return nil, &ExitError{State: m.state}
		case <-timer.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// Dial connects to a model that listens on another host ("tcp",
// "host:port") or on a socket another program started ("unix", path).
// name labels errors. Dial is bounded by ctx and DefaultStartTimeout; use
// SetTimeouts to change the timeouts of the Model it returns. Errors of a
// dialed model carry no process status or output.
func Dial(ctx context.Context, name, network, address string) (*Model, error) {
	m := &Model{name: name, t: Timeouts{}.withDefaults()}
	d := net.Dialer{Timeout: m.t.Start}
	conn, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, &ModelError{Model: name, Op: "connect to " + network + " " + address, Err: err}
	}
	m.setConn(conn)
	return m, nil
}

// encChunk is the size at which a window being built starts going out:
// large enough for few system calls, small enough that the model decodes
// the first frames while the rest are encoded.
const encChunk = 256 << 10

func (m *Model) setConn(conn net.Conn) {
	m.conn = conn
	m.wq = newWriteQueue(conn)
	m.enc = NewEncoder(conn)
	m.enc.SetChunk(encChunk)
	m.dec = newKeepingDecoder(conn) // reply frames stay in its buffers
	m.dec.Model = m.name
}

// SetTimeouts replaces the Model's timeouts with the non-zero fields of t.
func (m *Model) SetTimeouts(t Timeouts) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.Start > 0 {
		m.t.Start = t.Start
	}
	if t.Step > 0 {
		m.t.Step = t.Step
	}
	if t.Close > 0 {
		m.t.Close = t.Close
	}
}

// Name returns the instance name given to Start or Dial.
func (m *Model) Name() string { return m.name }

// Pid returns the model's process id; 0 for a dialed model.
func (m *Model) Pid() int { return m.pid }

// SocketPath returns the Unix socket path of a started model ("" after Dial).
func (m *Model) SocketPath() string { return m.sock }

// Cycle returns the cycle the model has reached: HELLO's stamp after the
// handshake, then the target of the last completed window.
func (m *Model) Cycle() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cycle
}

// Hello returns the model's HELLO (zero before Handshake).
func (m *Model) Hello() Hello {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hello
}

// Close ends the conversation and releases everything. On a healthy Model
// it sends GOODBYE, waits for the model's GOODBYE and for its process to
// exit, all within the Close timeout, then kills the process if it is
// still there, and closes the connection (Start removed the socket's
// directory once connected). A Model that failed earlier gets no GOODBYE: its connection is closed
// and its process is given the Close timeout to exit (killed at once if
// it had stopped answering); Close then returns nil, the failure having
// been reported already. Close may be called from another goroutine to
// abort a running Handshake or Step; it is idempotent.
func (m *Model) Close() error {
	m.closing.Store(true)
	m.kick()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if m.dir != "" {
		defer os.RemoveAll(m.dir)
	}
	deadline := time.Now().Add(m.t.Close)
	var byeErr error
	if m.broken == nil && m.shook {
		byeErr = m.goodbye(deadline)
	}
	m.wq.abort()
	m.conn.Close()
	m.wq.close()
	if m.cmd == nil {
		if byeErr != nil {
			return m.modelError("close: waiting for GOODBYE", m.classifyClose(byeErr))
		}
		return nil
	}
	killed := false
	if m.hung || !m.waitExit(time.Until(deadline)) {
		m.killProc()
		killed = true
		if !m.waitExit(reapTimeout) {
			return m.modelError("close", fmt.Errorf("process %d did not go away %v after SIGKILL", m.pid, reapTimeout))
		}
	}
	switch {
	case m.broken != nil:
		return nil
	case byeErr != nil:
		op := "close: waiting for GOODBYE"
		if killed {
			op += " (then killed the process)"
		}
		return m.modelError(op, m.classifyClose(byeErr))
	case killed:
		return m.modelError("close", fmt.Errorf("%w: the process was still running %v after GOODBYE; killed it", ErrTimeout, m.t.Close))
	case !m.state.Success():
		return m.modelError("close", &ExitError{State: m.state})
	}
	return nil
}

// goodbye sends GOODBYE and reads up to the model's GOODBYE. Pipelined
// windows still in flight are let through first, their replies read and
// dropped, so that a model closed in the middle of a run ends cleanly.
func (m *Model) goodbye(deadline time.Time) error {
	m.conn.SetDeadline(deadline)
	m.wq.setDeadline(deadline) // the model takes the rest of a window while we read
	for len(m.flights) > 0 {
		if err := m.dec.Read(&m.msg); err != nil {
			return err
		}
		switch m.msg.Type {
		case MsgDone:
			m.cycle = m.flights[0].target
			m.flights = m.flights[1:]
		case MsgError:
			return m.remote(&m.msg)
		}
	}
	if err := m.wq.drain(deadline); err != nil {
		return err
	}
	m.conn.SetDeadline(deadline)
	m.enc.Reset()
	m.enc.Goodbye(m.cycle, Goodbye{})
	if err := m.enc.Flush(); err != nil {
		return err
	}
	if err := m.dec.Read(&m.msg); err != nil {
		return err
	}
	switch m.msg.Type {
	case MsgGoodbye:
		return nil
	case MsgError:
		return m.remote(&m.msg)
	default:
		return m.perr(m.msg.Type, "unexpected %s while waiting for GOODBYE", m.msg.Type)
	}
}

func (m *Model) classifyClose(err error) error {
	switch {
	case isTimeout(err):
		return fmt.Errorf("%w: no GOODBYE within %v", ErrTimeout, m.t.Close)
	case errors.Is(err, io.EOF):
		return ErrConnClosed
	}
	return err
}
