//go:build unix

package tb_test

// The NIC's host interface blocks (rtl/nic/nic_cmd.sv, nic_cq.sv) through
// their test top sim/tops/nic_host_top.sv, which echoes every posted
// command as a completion: the record layouts against golden/nic's codec,
// the drop rules of a bad command, the post at L+1 (README "Timing",
// CMD_LATENCY) and the completion queue's order, timing and overflow under
// random sink stalls, cycle by cycle.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// nicHostCQDepth is nic_host_top's CQ_DEPTH.
const nicHostCQDepth = 16

// nhCommand is one command frame of the test and what the top must do
// with it: echo is the completion record it must send, nil for a command
// nic_cmd must drop.
type nhCommand struct {
	data []byte
	bad  bool // tuser[0] on the last beat
	echo []byte
}

// nhCommands makes n commands, about one in six bad in one of the ways
// golden/nic DecodeCommand rejects.
func nhCommands(rng *rand.Rand, n int) []nhCommand {
	cmds := make([]nhCommand, n)
	for i := range cmds {
		qpn := roce.QPN(rng.Uint32() & 0xFFFFFF)
		var c nhCommand
		if rng.IntN(3) == 0 {
			rr := rc.RecvRequest{ID: rng.Uint64(), Addr: rng.Uint64(), Length: rng.Uint32N(1<<20 + 1)}
			c.data = nic.AppendRecvCommand(nil, qpn, rr)
			c.echo = nic.AppendCompletion(nil, rc.Completion{QPN: qpn, Recv: true, ID: rr.ID, Bytes: rr.Length})
		} else {
			op := rc.Op(rng.IntN(5))
			wr := rc.WorkRequest{ID: rng.Uint64(), Op: op, LocalAddr: rng.Uint64(), Length: rng.Uint32N(1<<20 + 1),
				RemoteAddr: rng.Uint64(), RKey: rng.Uint32(), Imm: rng.Uint32()}
			c.data = nic.AppendSendCommand(nil, qpn, wr)
			c.echo = nic.AppendCompletion(nil, rc.Completion{QPN: qpn, ID: wr.ID, Op: op, Bytes: wr.Length,
				HasImm: op == rc.OpSendImm || op == rc.OpWriteImm, Imm: wr.Imm})
		}
		if rng.IntN(6) == 0 {
			c.echo = nil
			switch k := rng.IntN(7); k {
			case 0:
				c.data = c.data[:1+rng.IntN(63)] // short
			case 1:
				c.data = append(c.data, make([]byte, 1+rng.IntN(100))...) // long
			case 2:
				c.data[0] = []byte{0, 3, 0xFF}[rng.IntN(3)] // kind
			case 3:
				c.data[0], c.data[1] = nic.KindPostSend, []byte{5, 6, 7, 8, 12, 0x80}[rng.IntN(6)] // op: past READ, or aliasing a good one in 3 bits
			case 4:
				c.data[[]int{2, 3, 7, 44 + rng.IntN(20)}[rng.IntN(4)]] = byte(1 + rng.IntN(255)) // reserved
			case 5:
				c.bad = true
			case 6:
				c.data[0], c.data[1] = nic.KindPostRecv, 1 // a receive with an op
			}
			if _, err := nic.DecodeCommand(c.data); err == nil && !c.bad {
				panic(fmt.Sprintf("bad command %x decodes", c.data))
			}
		} else if _, err := nic.DecodeCommand(c.data); err != nil {
			panic(err)
		}
		cmds[i] = c
	}
	return cmds
}

// nhExpect is the completion queue of nic_host_top, cycle by cycle: posts
// at L+1, written in that cycle unless DEPTH records wait (the one leaving
// in that cycle counts), one beat per cycle the sink is ready. It returns
// the first-beat cycle of every echoed command (0 for a dropped one) and
// the number of overflows.
func nhExpect(cmds []nhCommand, lasts []uint64, width int, seed uint64, stall uint16) ([]uint64, int) {
	beats := uint64((nic.CompletionLen + width/8 - 1) / (width / 8))
	first := make([]uint64, len(cmds))
	var fifo []int // command indexes waiting, head first
	var beat uint64
	overflow, k := 0, 0
	for c := uint64(0); k < len(cmds) || len(fifo) > 0; c++ {
		full := len(fifo) == nicHostCQDepth
		if len(fifo) > 0 && cosim.SinkReady(seed, uint32(stall), 0, c) {
			if beat == 0 {
				first[fifo[0]] = c
			}
			if beat++; beat == beats {
				fifo, beat = fifo[1:], 0
			}
		}
		for k < len(cmds) && lasts[k]+1 == c {
			if cmds[k].echo != nil {
				if full {
					overflow++
				} else {
					fifo = append(fifo, k)
				}
			}
			k++
		}
	}
	return first, overflow
}

func TestNICHostRecords(t *testing.T) {
	for _, tc := range []struct {
		width int
		stall uint16
		gap   int // most idle cycles between commands
	}{{64, 0, 6}, {512, 0, 3}, {64, 30, 0}, {512, 60, 0}} {
		t.Run(fmt.Sprintf("%d_stall%d", tc.width, tc.stall), func(t *testing.T) {
			t.Parallel()
			nhRun(t, tc.width, tc.stall, tc.gap)
		})
	}
}

func nhRun(t *testing.T, width int, stall uint16, gap int) {
	name := fmt.Sprintf("nic_host_%d", width)
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), name, "Vnic_host_top")
	modeltest.NeedBinary(t, path)
	ctx := context.Background()
	m, err := cosim.Start(ctx, cosim.Config{Name: name, Path: path,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 30 * time.Second, Close: 5 * time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	seed := uint64(width)*1000 + uint64(stall)
	_, err = m.Handshake(ctx, cosim.HelloAck{Seed: seed, SinkStallPct: stall})
	require.NoError(t, err)

	rng := rand.New(rand.NewPCG(seed, 7))
	cmds := nhCommands(rng, 3000)
	frames := make([]cosim.Frame, len(cmds))
	var at uint64 = 5
	bw := width / 8
	for i, c := range cmds {
		frames[i] = cosim.Frame{Port: 0, Cycle: at, Data: c.data, Bad: c.bad}
		at += uint64((len(c.data)+bw-1)/bw) + uint64(rng.IntN(gap+1))
	}
	lasts := make([]uint64, len(cmds))
	var got []cosim.Frame
	var rep cosim.Reply
	require.NoError(t, m.StepInto(ctx, cosim.Window{Target: at, Frames: frames}, &rep))
	for {
		for _, a := range rep.Accepts {
			lasts[a.Seq] = a.LastCycle
		}
		got = append(got, rep.Frames...)
		if !rep.Done.Busy && m.Cycle() > at {
			break
		}
		require.Less(t, m.Cycle(), at+100_000, "the top drains")
		require.NoError(t, m.StepInto(ctx, cosim.Window{Target: m.Cycle() + 1000}, &rep))
	}
	require.NoError(t, m.StepInto(ctx, cosim.Window{Target: m.Cycle() + 10, CSRReads: []uint32{0, 4, 8}}, &rep))
	require.Len(t, rep.CSRData, 3)

	first, overflow := nhExpect(cmds, lasts, width, seed, stall)
	var want []int
	bad := 0
	for i, c := range cmds {
		if c.echo == nil {
			bad++
		} else if first[i] != 0 {
			want = append(want, i)
		}
	}
	t.Logf("%d commands, %d bad, %d echoed, %d overflowed; %d cycles", len(cmds), bad, len(want), overflow, m.Cycle())
	require.Equal(t, len(want), len(got), "completions out")
	for j, f := range got {
		i := want[j]
		if !assert.Equal(t, cmds[i].echo, f.Data, "completion %d (command %d)", j, i) ||
			!assert.Equal(t, first[i], f.Cycle, "completion %d (command %d, last beat %d): first beat", j, i, lasts[i]) {
			break
		}
		if stall == 0 {
			require.Equal(t, lasts[i]+2, f.Cycle, "an idle queue: first beat at L+2")
		}
	}
	assert.EqualValues(t, bad, rep.CSRData[0].Data, "cmd_bad")
	assert.EqualValues(t, overflow, rep.CSRData[1].Data, "cq_overflow")
	assert.EqualValues(t, len(cmds)-bad, rep.CSRData[2].Data, "posts")
	if stall >= 60 {
		assert.Positive(t, overflow, "the stalled run overflows the queue")
	}
}
