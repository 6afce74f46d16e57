package cosim

import (
	"bytes"
	"strconv"
	"testing"
)

// BenchmarkDecodeReply decodes a reply as a model sends it, an ACCEPT and
// a FRAME per frame, from memory: the harness's cost per frame out of
// the socket, without the socket.
func BenchmarkDecodeReply(b *testing.B) {
	for _, size := range []int{64, 1500} {
		b.Run(strconv.Itoa(size)+"B", func(b *testing.B) {
			var buf bytes.Buffer
			e := NewEncoder(&buf)
			data := make([]byte, size)
			const frames = 1024
			for i := range frames {
				e.Accept(Accept{Seq: uint32(i), Cycle: uint64(i), LastCycle: uint64(i) + 7})
				e.Frame(Frame{Seq: uint32(i), Cycle: uint64(i), LastCycle: uint64(i) + 7, Data: data})
			}
			e.Flush()
			stream := buf.Bytes()
			var m Msg
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				d := NewDecoder(bytes.NewReader(stream))
				for range 2 * frames {
					if err := d.Read(&m); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*frames), "ns/frame")
		})
	}
}
