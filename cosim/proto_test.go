package cosim

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The constants and sizes in proto.go must match the model side,
// sim/proto.h. This reads the header's text; the round trip against a
// real model belongs to the tests that build one.
func TestProtoMatchesHeader(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "sim", "proto.h"))
	if os.IsNotExist(err) {
		t.Skip("sim/proto.h not found")
	}
	require.NoError(t, err)
	h := string(src)

	num := func(re string) (int64, bool) {
		m := regexp.MustCompile(re).FindStringSubmatch(h)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseInt(m[1], 0, 64)
		require.NoError(t, err, re)
		return v, true
	}
	expect := func(name, re string, want int64) {
		t.Helper()
		got, ok := num(re)
		if assert.True(t, ok, "%s not found in sim/proto.h", name) {
			assert.Equal(t, want, got, "%s: sim/proto.h says %d, proto.go %d", name, got, want)
		}
	}

	expect("kProtoVersion", `kProtoVersion\s*=\s*(\d+)`, ProtoVersion)
	if m := regexp.MustCompile(`kMaxBody\s*=\s*1u?\s*<<\s*(\d+)`).FindStringSubmatch(h); assert.NotNil(t, m, "kMaxBody") {
		shift, _ := strconv.Atoi(m[1])
		assert.Equal(t, MaxBody, 1<<shift, "kMaxBody")
	}
	types := map[string]MsgType{
		"kHello": MsgHello, "kHelloAck": MsgHelloAck, "kFrame": MsgFrame, "kAccept": MsgAccept,
		"kRun": MsgRun, "kDone": MsgDone, "kCsrWrite": MsgCSRWrite, "kCsrRead": MsgCSRRead,
		"kCsrData": MsgCSRData, "kMemWrite": MsgMemWrite, "kMemRead": MsgMemRead,
		"kMemData": MsgMemData, "kError": MsgError, "kGoodbye": MsgGoodbye,
	}
	for name, typ := range types {
		expect(name, `\b`+name+`\s*=\s*(\d+)\s*,`, int64(typ))
	}
	codes := map[string]int64{
		"kErrProtocol": ErrCodeProtocol, "kErrVersion": ErrCodeVersion, "kErrPort": ErrCodePort,
		"kErrModel": ErrCodeModel, "kErrInternal": ErrCodeInternal,
	}
	for name, code := range codes {
		expect(name, `\b`+name+`\s*=\s*(\d+)`, code)
	}
	expect("kAckTrace", `kAckTrace\s*=\s*(\d+)`, FlagAckTrace)
	expect("kFrameBad", `kFrameBad\s*=\s*(\d+)`, FlagFrameBad)
	expect("kDoneBusy", `kDoneBusy\s*=\s*(\d+)`, FlagDoneBusy)
	sizes := map[string]int64{
		"MsgHeader": HeaderLen, "HelloBody": helloLen, "HelloAckBody": helloAckLen,
		"FrameBody": frameLen, "AcceptBody": acceptLen, "DoneBody": doneLen, "CsrBody": csrLen,
		"MemBody": memLen, "ErrorBody": errorLen, "GoodbyeBody": goodbyeLen,
	}
	for name, size := range sizes {
		expect("sizeof("+name+")", `sizeof\(`+name+`\)\s*==\s*(\d+)`, size)
	}
	// Every fixed-size type in the table has its size here.
	for typ, sp := range specs {
		if typ != 0 && typ != int(MsgRun) {
			assert.NotZero(t, sp.fixed, "%s", MsgType(typ))
		}
	}
}

// The package's errors name the model, not the package: a command that
// prints them under its own prefix (cosim run) shows one.
func TestErrorsHaveNoPackagePrefix(t *testing.T) {
	pe := &ProtocolError{Model: "m", Msg: MsgDone, Offset: 16, Reason: "bad"}
	me := &ModelError{Model: "m", Op: "step", Err: pe}
	assert.Equal(t, `model "m": protocol error in DONE at byte 16: bad`, pe.Error())
	assert.Equal(t, `model "m": step: protocol error in DONE at byte 16: bad`, me.Error())
	me = &ModelError{Model: "m", Op: "start", Err: errors.New("no such file")}
	assert.Equal(t, `model "m": start: no such file`, me.Error())
}
