package tap

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests need no device and no privileges.

func TestConfigCheck(t *testing.T) {
	for _, c := range []Config{
		{Mode: ModeOpen},
		{Name: "sixteen-bytes-xx"},
		{Name: "a/b"},
		{Name: "a:b"},
		{Name: "a b"},
		{Name: ".."},
		{Name: "ok", MTU: 67},
		{Name: "ok", MTU: 65536},
		{Name: "ok", Mode: 9},
		{Name: "ok", Owner: &Owner{UID: -1}},
	} {
		err := c.check()
		assert.ErrorIs(t, err, ErrInvalidConfig, "%+v", c)
		_, err = Open(c)
		assert.Error(t, err, "%+v", c)
	}
	for _, c := range []Config{
		{},
		{Name: "fifteen-bytes-x", Mode: ModeOpen},
		{Name: "t", MTU: 68, Owner: &Owner{UID: 1000, GID: -1}},
		{Name: "t", MTU: 65535},
	} {
		assert.NoError(t, c.check(), "%+v", c)
	}
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "create-new", ModeCreateNew.String())
	assert.Equal(t, "Mode(7)", Mode(7).String())
	assert.Equal(t, "short buffer", ReasonShortBuffer.String())
	assert.Equal(t, "Reason(0)", Reason(0).String())
	assert.Equal(t, "read", DirRead.String())
	assert.Equal(t, "Dir(0)", Dir(0).String())
}

// TestCheckRead covers the read-side runt, which a real TAP does not
// produce.
func TestCheckRead(t *testing.T) {
	tp := &TAP{name: "t0", mtu: 1500}
	cases := []struct {
		n, room int
		want    error
	}{
		{13, 2048, ErrRunt},
		{14, 2048, nil},
		{1518, 2048, nil},
		{1519, 2048, ErrOversize},
		{100, 99, ErrShortBuffer},
		{100, 100, nil},
	}
	for _, c := range cases {
		n, err := tp.checkRead(c.n, c.room)
		if c.want == nil {
			assert.NoError(t, err)
			assert.Equal(t, c.n, n)
			continue
		}
		assert.ErrorIs(t, err, c.want, "n=%d room=%d", c.n, c.room)
		assert.Zero(t, n)
	}
	assert.Equal(t, Counters{Frames: 3, Bytes: 14 + 1518 + 100, Runt: 1, Oversize: 1, ShortBuffer: 1}, tp.Stats().Read)
	assert.Equal(t, uint64(3), tp.Stats().Read.Dropped())
}

func TestErrorMessages(t *testing.T) {
	err := error(&DeviceError{Name: "veth0", Kind: "veth", Err: ErrNotTAP})
	assert.Equal(t, `tap: refusing "veth0": it is a veth device, not a TAP`, err.Error())
	assert.ErrorIs(t, err, ErrNotTAP)

	io := errors.New("input/output error")
	err = &FrameError{Device: "t0", Dir: DirWrite, Reason: ReasonIO, Len: 60, Err: io}
	assert.ErrorIs(t, err, io)
	assert.NotErrorIs(t, err, ErrRunt)
	assert.True(t, strings.HasPrefix(err.Error(), "tap t0: write: frame of 60 bytes"), err.Error())

	var fe *FrameError
	require.ErrorAs(t, error(&FrameError{Reason: ReasonOversize}), &fe)
	assert.Equal(t, ReasonOversize, fe.Reason)
}
