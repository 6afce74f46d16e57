package cosim_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/internal/fakemodel"
)

// listen opens a listener: "unix" in a short private directory (socket
// paths are limited to 107 bytes, test temp dirs can be longer) or "tcp"
// on the loopback.
func listen(t *testing.T, network string) net.Listener {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		dir, err := os.MkdirTemp("", "cosim-test-")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		addr = filepath.Join(dir, "m.sock")
	}
	ln, err := net.Listen(network, addr)
	require.NoError(t, err)
	return ln
}

// peer runs script as the model end of a connection and returns the
// dialed Model. The script's result arrives on the returned channel.
func peer(t *testing.T, network string, script func(c net.Conn) error) (*cosim.Model, <-chan error) {
	t.Helper()
	ln := listen(t, network)
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		done <- script(c)
	}()
	m, err := cosim.Dial(context.Background(), "peer0", network, ln.Addr().String())
	require.NoError(t, err)
	m.SetTimeouts(cosim.Timeouts{Start: time.Second, Step: time.Second, Close: time.Second})
	t.Cleanup(func() { m.Close() })
	return m, done
}

// The fake model in this process, dialed over TCP as a remote model would
// be: the conversation works the same, and Close ends it with GOODBYE.
func TestDialTCP(t *testing.T) {
	m, done := peer(t, "tcp", func(c net.Conn) error {
		return fakemodel.Serve(c, fakemodel.Options{Name: "remote", Ports: 2, Latency: 5})
	})
	ctx := context.Background()
	h, err := m.Handshake(ctx, cosim.HelloAck{Seed: 7, SrcGapPct: 10, SinkStallPct: 20})
	require.NoError(t, err)
	assert.EqualValues(t, 2, h.InPorts)
	assert.Zero(t, m.Pid())
	frames := []cosim.Frame{{Port: 1, Cycle: 3, Data: []byte("0123456789abcdef")}}
	r, err := m.Step(ctx, cosim.Window{Target: 100, Frames: frames})
	require.NoError(t, err)
	require.Len(t, r.Accepts, 1)
	assert.Equal(t, cosim.Accept{Port: 1, Seq: 0, Cycle: 3, LastCycle: 4}, r.Accepts[0])
	require.Len(t, r.Frames, 1)
	assert.Equal(t, cosim.Frame{Port: 1, Seq: 0, Cycle: 8, Data: []byte("0123456789abcdef")}, r.Frames[0])
	require.NoError(t, m.Close())
	assert.NoError(t, <-done, "the model saw a clean GOODBYE")
}

// A bad window is the caller's bug: Step refuses it before sending
// anything, and the Model stays usable.
func TestStepRejectsBadWindow(t *testing.T) {
	m, _ := peer(t, "unix", func(c net.Conn) error {
		return fakemodel.Serve(c, fakemodel.Options{Ports: 2})
	})
	ctx := context.Background()
	_, err := m.Handshake(ctx, cosim.HelloAck{})
	require.NoError(t, err)
	_, err = m.Step(ctx, cosim.Window{Target: 50})
	require.NoError(t, err)
	data := []byte{1, 2, 3}
	for name, w := range map[string]cosim.Window{
		"target before cycle":   {Target: 49},
		"port out of range":     {Target: 60, Frames: []cosim.Frame{{Port: 2, Cycle: 50, Data: data}}},
		"empty frame":           {Target: 60, Frames: []cosim.Frame{{Port: 0, Cycle: 50}}},
		"arrival before":        {Target: 60, Frames: []cosim.Frame{{Port: 0, Cycle: 49, Data: data}}},
		"arrival at target":     {Target: 60, Frames: []cosim.Frame{{Port: 0, Cycle: 60, Data: data}}},
		"arrivals out of order": {Target: 60, Frames: []cosim.Frame{{Port: 0, Cycle: 55, Data: data}, {Port: 0, Cycle: 54, Data: data}}},
		"frame in empty window": {Target: 50, Frames: []cosim.Frame{{Port: 0, Cycle: 50, Data: data}}},
		"memory read too long":  {Target: 60, MemReads: []cosim.Mem{{Length: cosim.MaxMemLen + 1}}},
	} {
		_, err := m.Step(ctx, w)
		assert.Error(t, err, name)
		var me *cosim.ModelError
		assert.ErrorAs(t, err, &me, name)
	}
	r, err := m.Step(ctx, cosim.Window{Target: 60, Frames: []cosim.Frame{{Port: 1, Cycle: 55, Data: data}}})
	require.NoError(t, err, "still usable")
	assert.Len(t, r.Accepts, 1)
	assert.EqualValues(t, 0, r.Accepts[0].Seq, "rejected windows used no sequence numbers")
}

// Model-side helpers for scripted peers.

func sendHello(c net.Conn, h cosim.Hello) error {
	e := cosim.NewEncoder(c)
	e.Hello(0, h)
	return e.Flush()
}

var stdHello = cosim.Hello{DataWidth: 64, InPorts: 2, OutPorts: 2, Text: "name=scripted\n"}

// answerGoodbye waits for GOODBYE and answers it.
func answerGoodbye(c net.Conn) error {
	if _, err := readUntil(cosim.NewDecoder(c), cosim.MsgGoodbye); err != nil {
		return err
	}
	e := cosim.NewEncoder(c)
	e.Goodbye(0, cosim.Goodbye{})
	return e.Flush()
}

// readUntil reads messages until one of type t; it returns that message.
func readUntil(d *cosim.Decoder, t cosim.MsgType) (cosim.Msg, error) {
	for {
		var m cosim.Msg
		if err := d.Read(&m); err != nil {
			return m, err
		}
		if m.Type == t {
			return m, nil
		}
	}
}

func TestHandshakeRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		send   func(e *cosim.Encoder)
		reason string
	}{
		{"width not a multiple of 8", func(e *cosim.Encoder) {
			e.Hello(0, cosim.Hello{DataWidth: 12, InPorts: 1, OutPorts: 1, Text: "name=x"})
		}, "data width 12 bits"},
		{"no name", func(e *cosim.Encoder) {
			e.Hello(0, cosim.Hello{DataWidth: 64, Text: "top=x\n"})
		}, "no name=<model> line"},
		{"not key=value", func(e *cosim.Encoder) {
			e.Hello(0, cosim.Hello{DataWidth: 64, Text: "name=x\njunk\n"})
		}, `text line 2 is not key=value: "junk"`},
		{"frame first", func(e *cosim.Encoder) {
			e.Frame(cosim.Frame{Data: []byte{1}})
		}, "expected HELLO, got FRAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, done := peer(t, "unix", func(c net.Conn) error {
				e := cosim.NewEncoder(c)
				tc.send(e)
				e.Flush()
				got, err := readUntil(cosim.NewDecoder(c), cosim.MsgError)
				if err != nil {
					return err
				}
				if got.Error.Code != cosim.ErrCodeProtocol {
					return errors.New("want a PROTOCOL error back")
				}
				return nil
			})
			_, err := m.Handshake(context.Background(), cosim.HelloAck{})
			var pe *cosim.ProtocolError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Reason, tc.reason)
			assert.NoError(t, <-done, "the model was told why")
		})
	}
}

func TestHandshakeErrorFromModel(t *testing.T) {
	m, _ := peer(t, "unix", func(c net.Conn) error {
		e := cosim.NewEncoder(c)
		e.Error(0, cosim.ErrCodeInternal, "cannot open trace file")
		return e.Flush()
	})
	_, err := m.Handshake(context.Background(), cosim.HelloAck{})
	var re *cosim.RemoteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "cannot open trace file", re.Text)
}

func TestHandshakeBadAck(t *testing.T) {
	m, done := peer(t, "unix", func(c net.Conn) error {
		sendHello(c, stdHello)
		return answerGoodbye(c)
	})
	_, err := m.Handshake(context.Background(), cosim.HelloAck{SrcGapPct: 101})
	assert.Error(t, err)
	_, err = m.Handshake(context.Background(), cosim.HelloAck{Trace: true})
	assert.Error(t, err)
	_, err = m.Handshake(context.Background(), cosim.HelloAck{})
	assert.NoError(t, err, "refused acks leave the Model usable")
	assert.NoError(t, m.Close())
	assert.NoError(t, <-done)
}

// Replies that are well-formed messages but wrong for the window are
// protocol errors, and the model is told with an ERROR.
func TestReplyViolations(t *testing.T) {
	// The window: target 100, one 16-byte frame on port 0 arriving at
	// cycle 10, one CSR read of 0x40.
	window := func() cosim.Window {
		return cosim.Window{
			Target:   100,
			Frames:   []cosim.Frame{{Port: 0, Cycle: 10, Data: make([]byte, 16)}},
			CSRReads: []uint32{0x40},
		}
	}
	out := func(port uint16, seq uint32, cycle uint64) cosim.Frame {
		return cosim.Frame{Port: port, Seq: seq, Cycle: cycle, Data: []byte{1, 2, 3}}
	}
	good := func(e *cosim.Encoder) {
		e.Accept(cosim.Accept{Port: 0, Seq: 0, Cycle: 10, LastCycle: 11})
		e.CSRData(0, cosim.CSR{Addr: 0x40, Data: 1})
	}
	for _, tc := range []struct {
		name   string
		reply  func(e *cosim.Encoder)
		reason string
	}{
		{"done for the wrong cycle", func(e *cosim.Encoder) {
			good(e)
			e.Done(cosim.Done{Cycle: 99})
		}, "cycle 99, want the target 100"},
		{"accept of an unsent frame", func(e *cosim.Encoder) {
			e.Accept(cosim.Accept{Port: 0, Seq: 1, Cycle: 10, LastCycle: 11})
		}, "frame seq 1 of port 0: expected the ACCEPT of seq 0"},
		{"accept on port 1, where nothing was sent", func(e *cosim.Encoder) {
			e.Accept(cosim.Accept{Port: 1, Seq: 0, Cycle: 10, LastCycle: 11})
		}, "frame seq 0 of port 1"},
		{"accept on a port that does not exist", func(e *cosim.Encoder) {
			e.Accept(cosim.Accept{Port: 7, Seq: 0, Cycle: 10, LastCycle: 11})
		}, "port 7, but the model has 2 input ports"},
		{"accept before arrival", func(e *cosim.Encoder) {
			e.Accept(cosim.Accept{Port: 0, Seq: 0, Cycle: 9, LastCycle: 11})
		}, "accepted at cycle 9, before its arrival at 10"},
		{"accept ending after the window", func(e *cosim.Encoder) {
			e.Accept(cosim.Accept{Port: 0, Seq: 0, Cycle: 99, LastCycle: 100})
		}, "last beat at cycle 100, outside the window [0, 100)"},
		{"frame on a port that does not exist", func(e *cosim.Encoder) {
			e.Frame(out(2, 0, 20))
		}, "port 2, but the model has 2 output ports"},
		{"frame with a sequence gap", func(e *cosim.Encoder) {
			e.Frame(out(1, 1, 20))
		}, "seq 1 on output port 1, want 0"},
		{"frame from the future", func(e *cosim.Encoder) {
			e.Frame(out(1, 0, 100))
		}, "first beat at cycle 100, not before the window's end 100"},
		{"frames out of order", func(e *cosim.Encoder) {
			e.Frame(out(1, 0, 20))
			e.Frame(out(1, 1, 20))
		}, "starts at cycle 20, not after the previous frame's 20"},
		{"frames_out does not add up", func(e *cosim.Encoder) {
			good(e)
			e.Frame(out(1, 0, 20))
			e.Done(cosim.Done{Cycle: 100, FramesOut: 2})
		}, "frames_out 2, but 1 FRAME messages came"},
		{"frames_queued does not add up", func(e *cosim.Encoder) {
			e.CSRData(0, cosim.CSR{Addr: 0x40})
			e.Done(cosim.Done{Cycle: 100, FramesQueued: 0})
		}, "frames_queued 0, but 1 input frames"},
		{"csr answer nobody asked for", func(e *cosim.Encoder) {
			e.CSRData(0, cosim.CSR{Addr: 0x44})
		}, "address 0x44 does not answer CSR read 0 of 1"},
		{"csr read unanswered", func(e *cosim.Encoder) {
			e.Accept(cosim.Accept{Port: 0, Seq: 0, Cycle: 10, LastCycle: 11})
			e.Done(cosim.Done{Cycle: 100})
		}, "0 CSR reads answered of 1"},
		{"memory answer nobody asked for", func(e *cosim.Encoder) {
			e.MemData(0, cosim.Mem{Addr: 0, Data: []byte{1}})
		}, "1 bytes at 0x0 do not answer memory read 0 of 0"},
		{"RUN from the model", func(e *cosim.Encoder) {
			e.Run(100)
		}, "unexpected RUN while waiting for DONE"},
		{"GOODBYE in the middle", func(e *cosim.Encoder) {
			e.Goodbye(0, cosim.Goodbye{})
		}, "unexpected GOODBYE while waiting for DONE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, done := peer(t, "unix", func(c net.Conn) error {
				if err := sendHello(c, stdHello); err != nil {
					return err
				}
				d := cosim.NewDecoder(c)
				if _, err := readUntil(d, cosim.MsgRun); err != nil {
					return err
				}
				e := cosim.NewEncoder(c)
				tc.reply(e)
				if err := e.Flush(); err != nil {
					return err
				}
				got, err := readUntil(d, cosim.MsgError)
				if err != nil {
					return err
				}
				if got.Error.Code != cosim.ErrCodeProtocol {
					return errors.New("want a PROTOCOL error back")
				}
				return nil
			})
			ctx := context.Background()
			_, err := m.Handshake(ctx, cosim.HelloAck{})
			require.NoError(t, err)
			t0 := time.Now()
			_, err = m.Step(ctx, window())
			assert.Less(t, time.Since(t0), time.Second)
			var pe *cosim.ProtocolError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Reason, tc.reason)
			assert.Equal(t, "peer0", pe.Model)
			assert.NoError(t, <-done, "the model was told why")
		})
	}
}

// A reply whose messages come in another order than proto.h lists them
// is accepted; what matters is the order per port and the counts.
func TestReplyAnyOrder(t *testing.T) {
	m, _ := peer(t, "unix", func(c net.Conn) error {
		sendHello(c, stdHello)
		d := cosim.NewDecoder(c)
		if _, err := readUntil(d, cosim.MsgRun); err != nil {
			return err
		}
		e := cosim.NewEncoder(c)
		e.MemData(0, cosim.Mem{Addr: 8, Data: []byte("mem")})
		e.Frame(cosim.Frame{Port: 1, Seq: 0, Cycle: 5, Data: []byte("out")})
		e.CSRData(0, cosim.CSR{Addr: 4, Data: 9})
		e.Accept(cosim.Accept{Port: 0, Seq: 0, Cycle: 1, LastCycle: 2})
		e.Done(cosim.Done{Cycle: 10, FramesOut: 1})
		e.Flush()
		_, err := readUntil(d, cosim.MsgGoodbye)
		e.Goodbye(10, cosim.Goodbye{})
		e.Flush()
		return err
	})
	ctx := context.Background()
	_, err := m.Handshake(ctx, cosim.HelloAck{})
	require.NoError(t, err)
	r, err := m.Step(ctx, cosim.Window{
		Target:   10,
		Frames:   []cosim.Frame{{Port: 0, Cycle: 1, Data: []byte("in")}},
		CSRReads: []uint32{4},
		MemReads: []cosim.Mem{{Addr: 8, Length: 3}},
	})
	require.NoError(t, err)
	assert.Equal(t, "out", string(r.Frames[0].Data))
	assert.Equal(t, "mem", string(r.MemData[0].Data))
	// Appending to one piece of the reply's data must not clobber another.
	_ = append(r.Frames[0].Data, "XXXX"...)
	assert.Equal(t, "mem", string(r.MemData[0].Data))
	assert.NoError(t, m.Close())
}

func TestCloseDialedWithoutGoodbye(t *testing.T) {
	m, _ := peer(t, "unix", func(c net.Conn) error {
		sendHello(c, stdHello)
		_, err := readUntil(cosim.NewDecoder(c), cosim.MsgGoodbye)
		return err // and close without answering
	})
	_, err := m.Handshake(context.Background(), cosim.HelloAck{})
	require.NoError(t, err)
	err = m.Close()
	assert.ErrorIs(t, err, cosim.ErrConnClosed)
}

func TestModelClosesConnection(t *testing.T) {
	m, _ := peer(t, "unix", func(c net.Conn) error {
		sendHello(c, stdHello)
		_, err := readUntil(cosim.NewDecoder(c), cosim.MsgRun)
		return err // and close without answering
	})
	_, err := m.Handshake(context.Background(), cosim.HelloAck{})
	require.NoError(t, err)
	t0 := time.Now()
	_, err = m.Step(context.Background(), cosim.Window{Target: 10})
	assert.Less(t, time.Since(t0), time.Second)
	assert.ErrorIs(t, err, cosim.ErrConnClosed)
}

// A model that never answers: the step times out at the deadline.
func TestSilentPeerTimesOut(t *testing.T) {
	release := make(chan struct{})
	m, _ := peer(t, "unix", func(c net.Conn) error {
		sendHello(c, stdHello)
		<-release
		return nil
	})
	defer close(release)
	m.SetTimeouts(cosim.Timeouts{Step: 300 * time.Millisecond})
	_, err := m.Handshake(context.Background(), cosim.HelloAck{})
	require.NoError(t, err)
	t0 := time.Now()
	_, err = m.Step(context.Background(), cosim.Window{Target: 10})
	elapsed := time.Since(t0)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	assert.GreaterOrEqual(t, elapsed, 300*time.Millisecond)
	assert.Less(t, elapsed, time.Second)
	assert.Contains(t, err.Error(), `model "peer0": step to cycle 10: waiting for DONE (0 reply messages received): timeout: no answer within 300ms`)
}

// A model that sends ERROR and closes while the harness is still writing
// a large window: the failed write is explained by the model's ERROR.
func TestErrorWhileSending(t *testing.T) {
	m, _ := peer(t, "unix", func(c net.Conn) error {
		sendHello(c, stdHello)
		if _, err := readUntil(cosim.NewDecoder(c), cosim.MsgHelloAck); err != nil {
			return err
		}
		e := cosim.NewEncoder(c)
		e.Error(0, cosim.ErrCodeModel, "out of memory")
		return e.Flush()
	})
	ctx := context.Background()
	_, err := m.Handshake(ctx, cosim.HelloAck{})
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond) // the model has closed
	big := make([]byte, cosim.MaxFrameLen)
	var frames []cosim.Frame
	for i := range 16 {
		frames = append(frames, cosim.Frame{Port: uint16(i % 2), Cycle: uint64(i), Data: big})
	}
	_, err = m.Step(ctx, cosim.Window{Target: 100, Frames: frames})
	var re *cosim.RemoteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "out of memory", re.Text)
}
