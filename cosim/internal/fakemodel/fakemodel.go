// Package fakemodel is a stand-in for a Verilator model, written in Go, for
// the tests of package cosim. It speaks the model side of the socket
// protocol over a real connection: it sends HELLO, takes windows, and
// echoes every frame that enters input port p out of output port p a fixed
// number of cycles after the DUT took its first beat. Ports move one
// DataWidth-bit beat per cycle, so a frame of n bytes takes ceil(8n/width)
// cycles on the way in and on the way out. CSRs are a register file and
// host memory is a sparse byte store.
//
// Its Modes misbehave on purpose (garbage instead of HELLO, a wrong
// version, a message cut short, an ERROR, a stall, a GOODBYE ignored) so
// that the harness's fault handling can be tested against a real process.
//
// It is not a model of any RTL; the real models live in sim/.
package fakemodel

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/rocesim/cosim/cosim"
)

// Mode selects a misbehaviour.
type Mode string

// Modes. Those marked "at FailAt" act when window number FailAt (counting
// from 0) has been received.
const (
	Normal        Mode = ""
	Garbage       Mode = "garbage"        // text instead of HELLO, then wait for EOF
	BadVersion    Mode = "version"        // HELLO with version ProtoVersion+1
	Truncate      Mode = "truncate"       // at FailAt: half a FRAME, then close and exit
	SendError     Mode = "error"          // at FailAt: ERROR (MODEL), then close and exit 1
	Stall         Mode = "stall"          // at FailAt: never answer
	IgnoreGoodbye Mode = "ignore-goodbye" // never answer GOODBYE, never exit
	ExitEarly     Mode = "exit-early"     // (Main) print a complaint and exit 3 before listening
	NoListen      Mode = "no-listen"      // (Main) never create the socket
)

// Options configure the fake model.
type Options struct {
	Name      string // the name in HELLO; default "fake"
	DataWidth uint32 // bits per beat; default 64
	Ports     uint16 // input ports and as many output ports; default 4
	Latency   uint64 // first beat in to first beat out, cycles; default 10
	Start     uint64 // cycle stamp of HELLO; the first window starts there
	Mode      Mode
	FailAt    int
	Log       io.Writer // progress lines; nil: none
	Verbose   bool      // a Log line per window
}

func (o *Options) defaults() {
	if o.Name == "" {
		o.Name = "fake"
	}
	if o.DataWidth == 0 {
		o.DataWidth = 64
	}
	if o.Ports == 0 {
		o.Ports = 4
	}
	if o.Latency == 0 {
		o.Latency = 10
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

type inFrame struct {
	seq     uint32
	arrival uint64
	bad     bool
	data    []byte
}

type outFrame struct {
	first, last uint64
	bad         bool
	data        []byte
}

type port struct {
	queue  []inFrame  // arrived, not yet fully taken
	free   uint64     // first cycle the input is free
	outs   []outFrame // taken, not yet fully sent
	inSeq  uint32     // next input seq expected
	outSeq uint32
}

type model struct {
	o      Options
	conn   net.Conn
	enc    *cosim.Encoder
	dec    *cosim.Decoder
	cycle  uint64
	ports  []port
	csr    map[uint32]uint32
	mem    map[uint64]byte
	window int
}

// ErrHarnessGone: the harness closed the connection without GOODBYE.
var ErrHarnessGone = errors.New("fakemodel: harness closed the connection")

// Serve speaks the model side of the protocol on conn until GOODBYE (then
// it returns nil), an error, or a fault mode ends it. It does not close
// conn.
func Serve(conn net.Conn, o Options) error {
	o.defaults()
	m := &model{
		o: o, conn: conn, enc: cosim.NewEncoder(conn), dec: cosim.NewDecoder(conn),
		cycle: o.Start, ports: make([]port, o.Ports),
		csr: map[uint32]uint32{}, mem: map[uint64]byte{},
	}
	m.dec.Model = "harness"
	for i := range m.ports {
		m.ports[i].free = o.Start
	}
	return m.serve()
}

func (m *model) logf(format string, args ...any) {
	fmt.Fprintf(m.o.Log, "fakemodel %s: "+format+"\n", append([]any{m.o.Name}, args...)...)
}

func (m *model) serve() error {
	if m.o.Mode == Garbage {
		m.logf("sending garbage instead of HELLO")
		m.conn.Write([]byte("Hello, I am not a co-simulation model at all.\n"))
		io.Copy(io.Discard, m.conn)
		return errors.New("fakemodel: sent garbage")
	}
	version := uint32(cosim.ProtoVersion)
	if m.o.Mode == BadVersion {
		version++
	}
	text := fmt.Sprintf("name=%s\ntop=fake_echo\nparam.DATA_WIDTH=%d\nparam.PORTS=%d\nparam.LATENCY=%d\n",
		m.o.Name, m.o.DataWidth, m.o.Ports, m.o.Latency)
	m.enc.Hello(m.cycle, cosim.Hello{Version: version, DataWidth: m.o.DataWidth, InPorts: m.o.Ports, OutPorts: m.o.Ports, Text: text})
	if err := m.enc.Flush(); err != nil {
		return err
	}
	var msg cosim.Msg
	if err := m.dec.Read(&msg); err != nil {
		return m.readErr(err)
	}
	switch msg.Type {
	case cosim.MsgHelloAck:
		m.logf("handshake done at cycle %d, seed %d", m.cycle, msg.HelloAck.Seed)
	case cosim.MsgError:
		return fmt.Errorf("fakemodel: harness sent ERROR %d: %s", msg.Error.Code, msg.Error.Text)
	default:
		return m.reject(fmt.Sprintf("expected HELLO_ACK, got %s", msg.Type))
	}
	for ; ; m.window++ {
		var (
			csrReads []uint32
			memReads []cosim.Mem
		)
	read:
		for {
			if err := m.dec.Read(&msg); err != nil {
				return m.readErr(err)
			}
			switch msg.Type {
			case cosim.MsgFrame:
				if err := m.takeFrame(msg.Frame); err != nil {
					return err
				}
			case cosim.MsgCSRWrite:
				m.csr[msg.CSR.Addr] = msg.CSR.Data
			case cosim.MsgCSRRead:
				csrReads = append(csrReads, msg.CSR.Addr)
			case cosim.MsgMemWrite:
				for i, b := range msg.Mem.Data {
					m.mem[msg.Mem.Addr+uint64(i)] = b
				}
			case cosim.MsgMemRead:
				memReads = append(memReads, msg.Mem)
			case cosim.MsgRun:
				break read
			case cosim.MsgGoodbye:
				if m.o.Mode == IgnoreGoodbye {
					m.logf("ignoring GOODBYE")
					io.Copy(io.Discard, m.conn)
					m.logf("harness went away; hanging on")
					time.Sleep(time.Hour)
				}
				m.logf("GOODBYE at cycle %d after %d windows", m.cycle, m.window)
				m.enc.Goodbye(m.cycle, cosim.Goodbye{})
				return m.enc.Flush()
			case cosim.MsgError:
				return fmt.Errorf("fakemodel: harness sent ERROR %d: %s", msg.Error.Code, msg.Error.Text)
			default:
				return m.reject(fmt.Sprintf("unexpected %s", msg.Type))
			}
		}
		target := msg.Cycle
		if target < m.cycle {
			return m.reject(fmt.Sprintf("RUN to cycle %d, before the current cycle %d", target, m.cycle))
		}
		if m.window == m.o.FailAt {
			if err := m.fault(); err != nil {
				return err
			}
		}
		if err := m.run(target, csrReads, memReads); err != nil {
			return err
		}
	}
}

func (m *model) fault() error {
	switch m.o.Mode {
	case Truncate:
		m.logf("window %d: sending half a FRAME and leaving", m.window)
		m.enc.Frame(cosim.Frame{Port: 0, Cycle: m.cycle, Data: make([]byte, 64)})
		b := m.enc.Bytes()
		m.conn.Write(b[:len(b)-40])
		m.enc.Reset()
		return errors.New("fakemodel: truncated a message on purpose")
	case SendError:
		text := fmt.Sprintf("assertion failed: fifo overflow on port 0 at cycle %d", m.cycle+3)
		m.logf("window %d: %s", m.window, text)
		m.enc.Error(m.cycle+3, cosim.ErrCodeModel, text)
		m.enc.Flush()
		return errors.New("fakemodel: the RTL failed on purpose")
	case Stall:
		m.logf("window %d: stalling", m.window)
		time.Sleep(time.Hour)
	}
	return nil
}

// reject tells the harness what was wrong, then gives up.
func (m *model) reject(text string) error {
	m.enc.Error(m.cycle, cosim.ErrCodeProtocol, text)
	m.enc.Flush()
	return errors.New("fakemodel: " + text)
}

func (m *model) readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return ErrHarnessGone
	}
	return fmt.Errorf("fakemodel: reading: %w", err)
}

func (m *model) takeFrame(f cosim.Frame) error {
	if int(f.Port) >= len(m.ports) {
		m.enc.Error(f.Cycle, cosim.ErrCodePort, fmt.Sprintf("input port %d out of range", f.Port))
		m.enc.Flush()
		return fmt.Errorf("fakemodel: input port %d out of range", f.Port)
	}
	p := &m.ports[f.Port]
	if f.Seq != p.inSeq {
		return m.reject(fmt.Sprintf("frame seq %d on port %d, want %d", f.Seq, f.Port, p.inSeq))
	}
	if f.Cycle < m.cycle {
		return m.reject(fmt.Sprintf("frame arrives at cycle %d, before the current cycle %d", f.Cycle, m.cycle))
	}
	p.inSeq++
	p.queue = append(p.queue, inFrame{seq: f.Seq, arrival: f.Cycle, bad: f.Bad, data: append([]byte(nil), f.Data...)})
	return nil
}

func (m *model) beats(n int) uint64 {
	w := uint64(m.o.DataWidth)
	return (uint64(n)*8 + w - 1) / w
}

// run simulates [m.cycle, target) and sends the reply.
func (m *model) run(target uint64, csrReads []uint32, memReads []cosim.Mem) error {
	nIn, nOut, queued, busy := 0, 0, 0, false
	for pi := range m.ports {
		p := &m.ports[pi]
		for len(p.queue) > 0 {
			f := p.queue[0]
			first := max(f.arrival, p.free)
			last := first + m.beats(len(f.data)) - 1
			if last >= target {
				break
			}
			m.enc.Accept(cosim.Accept{Port: uint16(pi), Seq: f.seq, Cycle: first, LastCycle: last})
			p.free = last + 1
			p.outs = append(p.outs, outFrame{first: first + m.o.Latency, last: last + m.o.Latency, bad: f.bad, data: f.data})
			p.queue = p.queue[1:]
			nIn++
		}
	}
	for pi := range m.ports {
		p := &m.ports[pi]
		for len(p.outs) > 0 && p.outs[0].last < target {
			o := p.outs[0]
			m.enc.Frame(cosim.Frame{Port: uint16(pi), Seq: p.outSeq, Cycle: o.first, Bad: o.bad, Data: o.data})
			p.outSeq++
			p.outs = p.outs[1:]
			nOut++
		}
		queued += len(p.queue)
		busy = busy || len(p.queue) > 0 || len(p.outs) > 0
	}
	for _, a := range csrReads {
		m.enc.CSRData(m.cycle, cosim.CSR{Addr: a, Data: m.csr[a]})
	}
	for _, r := range memReads {
		data := make([]byte, r.Length)
		for i := range data {
			data[i] = m.mem[r.Addr+uint64(i)]
		}
		m.enc.MemData(m.cycle, cosim.Mem{Addr: r.Addr, Data: data})
	}
	m.enc.Done(cosim.Done{Cycle: target, Busy: busy, FramesOut: uint32(nOut), FramesQueued: uint32(queued)})
	if m.o.Verbose {
		m.logf("window %d [%d, %d): %d frames taken, %d sent, %d queued", m.window, m.cycle, target, nIn, nOut, queued)
	}
	m.cycle = target
	return m.enc.Flush()
}

// Main is the fake model's command line: it listens on --socket, serves
// one harness and returns the exit status. Flags: --socket PATH (required),
// --name, --width, --ports, --latency, --start, --mode, --fail-at, -v,
// --ring-fd (ignored).
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	socket := fs.String("socket", "", "Unix socket to listen on")
	fs.StringVar(&o.Name, "name", "fake", "model name in HELLO")
	width := fs.Uint("width", 64, "data width, bits")
	ports := fs.Uint("ports", 4, "input and output ports")
	fs.Uint64Var(&o.Latency, "latency", 10, "echo latency, cycles")
	fs.Uint64Var(&o.Start, "start", 0, "cycle stamp of HELLO")
	mode := fs.String("mode", "", "misbehaviour")
	fs.IntVar(&o.FailAt, "fail-at", 0, "window at which the misbehaviour starts")
	fs.BoolVar(&o.Verbose, "v", false, "a line per window")
	// Shared memory offered by the harness: taken and never mapped, as by a
	// model that talks through its socket only.
	fs.Int("ring-fd", -1, "shared memory file descriptor (ignored)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.DataWidth, o.Ports, o.Mode, o.Log = uint32(*width), uint16(*ports), Mode(*mode), stderr
	fmt.Fprintf(stdout, "fakemodel %s: pid %d, mode %q\n", o.Name, os.Getpid(), o.Mode)
	switch {
	case o.Mode == ExitEarly:
		fmt.Fprintf(stderr, "fakemodel %s: refusing to start (mode exit-early)\n", o.Name)
		return 3
	case o.Mode == NoListen:
		fmt.Fprintf(stderr, "fakemodel %s: not listening (mode no-listen)\n", o.Name)
		time.Sleep(time.Hour)
		return 0
	case *socket == "":
		fmt.Fprintln(stderr, "fakemodel: --socket is required")
		return 2
	}
	ln, err := net.Listen("unix", *socket)
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel %s: %v\n", o.Name, err)
		return 1
	}
	conn, err := ln.Accept()
	ln.Close()
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel %s: %v\n", o.Name, err)
		return 1
	}
	defer conn.Close()
	if err := Serve(conn, o); err != nil {
		fmt.Fprintf(stderr, "fakemodel %s: %v\n", o.Name, err)
		return 1
	}
	return 0
}
