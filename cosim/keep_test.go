package cosim

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A keeping decoder decodes what a plain one does, and the data of every
// message it returned is still intact after it has read on over several
// chunks, whatever sizes the reads come in.
func TestKeepingDecoderKeeps(t *testing.T) {
	one := sampleMsgs()
	var msgs []Msg
	for i := 0; i < 3000; i++ {
		f := Frame{Port: 1, Seq: uint32(i), Cycle: uint64(i), LastCycle: uint64(i + 3),
			Data: bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 1+i%900)} // some span chunk ends
		msgs = append(msgs, Msg{Type: MsgFrame, Cycle: f.Cycle, Frame: f}, one[i%len(one)])
	}
	stream := encodeAll(t, msgs...)
	require.Greater(t, len(stream), 2*keepChunk)
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(stream),
		"one byte": iotest.OneByteReader(bytes.NewReader(stream)),
		"halves":   iotest.HalfReader(bytes.NewReader(stream)),
	} {
		t.Run(name, func(t *testing.T) {
			d := newKeepingDecoder(r)
			var got []Msg
			for {
				var m Msg
				err := d.Read(&m)
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				if m.Frame.Data != nil {
					assert.Equal(t, len(m.Frame.Data), cap(m.Frame.Data), "capped")
				}
				got = append(got, m) // no copy
			}
			assert.Equal(t, msgs, got)
			assert.Equal(t, int64(len(stream)), d.off)
		})
	}
}

// Errors and offsets are those of a plain decoder, for every prefix of a
// stream and for a failing reader.
func TestKeepingDecoderErrors(t *testing.T) {
	stream := encodeAll(t, sampleMsgs()...)
	for n := range len(stream) + 1 {
		plain, keep := NewDecoder(bytes.NewReader(stream[:n])), newKeepingDecoder(bytes.NewReader(stream[:n]))
		var a, b Msg
		var ea, eb error
		for ea == nil && eb == nil {
			ea, eb = plain.Read(&a), keep.Read(&b)
			require.Equal(t, cloneMsg(a), cloneMsg(b), "prefix %d", n)
		}
		require.Equal(t, ea, eb, "prefix %d", n)
		require.Equal(t, plain.Offset(), keep.Offset(), "prefix %d", n)
	}
	boom := errors.New("boom")
	d := newKeepingDecoder(io.MultiReader(bytes.NewReader(raw(MsgRun, 0, 0, 0)[:5]), &errReader{boom}))
	var m Msg
	assert.Equal(t, boom, d.Read(&m))
	assert.Equal(t, boom, d.Read(&m), "sticky")
}
