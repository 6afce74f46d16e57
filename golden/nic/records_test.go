package nic

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/rc"
)

// The layouts, written out by hand from rtl/nic/README.md "Host records".
func TestRecordLayouts(t *testing.T) {
	wr := rc.WorkRequest{ID: 0x1122334455667788, Op: rc.OpWriteImm, LocalAddr: 0x0000_7F00_1000_0040,
		Length: 0x1234, RKey: 0xA1B2C3D4, RemoteAddr: 0x0000_0001_0000_2000, Imm: 0xDEADBEEF}
	got := AppendSendCommand(nil, 0x123456, wr)
	want := "01030000" + "56341200" + "8877665544332211" + "4000001000" + "7f0000" + "34120000" + "d4c3b2a1" +
		"0020000001000000" + "efbeadde" + "0000000000000000000000000000000000000000"
	assert.Equal(t, want, hex.EncodeToString(got))

	rr := rc.RecvRequest{ID: 7, Addr: 0x8000, Length: 4096}
	got = AppendRecvCommand(nil, 0x11, rr)
	want = "02000000" + "11000000" + "0700000000000000" + "0080000000000000" + "00100000" + "00000000" +
		"0000000000000000" + "00000000" + "0000000000000000000000000000000000000000"
	assert.Equal(t, want, hex.EncodeToString(got))

	c := rc.Completion{QPN: 0x11, Recv: true, ID: 9, Op: rc.OpSendImm, Status: rc.StatusLocalLength,
		Bytes: 300, HasImm: true, Imm: 0x01020304}
	got = AppendCompletion(nil, c)
	want = "02010101" + "11000000" + "0900000000000000" + "2c010000" + "04030201" + "0000000000000000"
	assert.Equal(t, want, hex.EncodeToString(got))
}

func TestRecordRoundTrip(t *testing.T) {
	for op := rc.OpSend; op <= rc.OpRead; op++ {
		wr := rc.WorkRequest{ID: uint64(op) << 40, Op: op, LocalAddr: 0x1000, Length: 1 << 20, RKey: 5, RemoteAddr: 0x2000, Imm: 3}
		c, err := DecodeCommand(AppendSendCommand(nil, 0xFFFFFF, wr))
		require.NoError(t, err)
		assert.Equal(t, Command{Kind: KindPostSend, QPN: 0xFFFFFF, Send: wr}, c)
	}
	rr := rc.RecvRequest{ID: 1, Addr: 2, Length: 3}
	c, err := DecodeCommand(AppendRecvCommand(nil, 4, rr))
	require.NoError(t, err)
	assert.Equal(t, Command{Kind: KindPostRecv, QPN: 4, Recv: rr}, c)

	for st := rc.StatusSuccess; st <= rc.StatusRemoteAccessReq; st++ {
		want := rc.Completion{QPN: 0x42, ID: uint64(st), Op: rc.OpRead, Status: st, Bytes: 10}
		got, err := DecodeCompletion(AppendCompletion(nil, want))
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// Records the NIC drops as cmd_bad.
func TestDecodeCommandRejects(t *testing.T) {
	good := AppendSendCommand(nil, 1, rc.WorkRequest{Op: rc.OpSend, Length: 8})
	for name, b := range map[string][]byte{
		"short":            good[:63],
		"long":             append(append([]byte{}, good...), 0),
		"kind 0":           with(good, 0, 0),
		"kind 3":           with(good, 0, 3),
		"op 5":             with(good, 1, 5),
		"reserved byte 2":  with(good, 2, 1),
		"QPN bits 31:24":   with(good, 7, 1),
		"reserved tail":    with(good, 63, 1),
		"recv with op":     with(AppendRecvCommand(nil, 1, rc.RecvRequest{}), 1, 1),
		"recv with a key":  with(AppendRecvCommand(nil, 1, rc.RecvRequest{}), 28, 1),
		"recv with remote": with(AppendRecvCommand(nil, 1, rc.RecvRequest{}), 39, 1),
	} {
		_, err := DecodeCommand(b)
		assert.True(t, errors.Is(err, ErrBadCommand), "%s: %v", name, err)
	}
}

func with(b []byte, i int, v byte) []byte {
	c := append([]byte{}, b...)
	c[i] = v
	return c
}
