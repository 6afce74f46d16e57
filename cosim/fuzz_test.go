package cosim

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the committed fuzz seed corpus under testdata/")

// fuzzSeeds are the committed seeds of FuzzDecode: every message type, a
// window and a reply as batches, and the faults the decoder must name.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	for _, m := range sampleMsgs() {
		name := "seed-" + m.Type.String()
		for i := 2; seeds[name] != nil; i++ {
			name = fmt.Sprintf("seed-%s-%d", m.Type, i)
		}
		seeds[name] = encodeAll(t, m)
	}
	seeds["seed-window"] = encodeAll(t,
		Msg{Type: MsgFrame, Frame: Frame{Port: 0, Seq: 0, Cycle: 10, Data: bytes.Repeat([]byte{0xaa}, 64)}},
		Msg{Type: MsgFrame, Frame: Frame{Port: 1, Seq: 0, Cycle: 12, Bad: true, Data: bytes.Repeat([]byte{0xbb}, 60)}},
		Msg{Type: MsgCSRWrite, Cycle: 10, CSR: CSR{Addr: 4, Data: 1}},
		Msg{Type: MsgCSRRead, Cycle: 10, CSR: CSR{Addr: 4}},
		Msg{Type: MsgMemWrite, Cycle: 10, Mem: Mem{Addr: 0x1000, Data: []byte("abcd")}},
		Msg{Type: MsgMemRead, Cycle: 10, Mem: Mem{Addr: 0x1000, Length: 4}},
		Msg{Type: MsgRun, Cycle: 74},
	)
	seeds["seed-reply"] = encodeAll(t,
		Msg{Type: MsgAccept, Accept: Accept{Port: 0, Seq: 0, Cycle: 10, LastCycle: 17}},
		Msg{Type: MsgFrame, Frame: Frame{Port: 2, Seq: 5, Cycle: 20, Data: bytes.Repeat([]byte{0xcc}, 64)}},
		Msg{Type: MsgCSRData, Cycle: 10, CSR: CSR{Addr: 4, Data: 1}},
		Msg{Type: MsgMemData, Cycle: 10, Mem: Mem{Addr: 0x1000, Data: []byte("abcd")}},
		Msg{Type: MsgDone, Done: Done{Cycle: 74, FramesOut: 1}},
	)
	seeds["seed-garbage"] = []byte("Hello, I am not a co-simulation model at all.\n")
	seeds["seed-version-2"] = raw(MsgHello, 0, 22, 0, u32(2), u32(64), u16(1), u16(1), u32(6), []byte("name=x"))
	seeds["seed-text-len-wrong"] = raw(MsgError, 0, 10, 0, u32(1), u32(9), []byte("no"))
	seeds["seed-truncated-body"] = encodeAll(t, sampleMsgs()[3])[:40]
	seeds["seed-truncated-header"] = encodeAll(t, Msg{Type: MsgRun, Cycle: 5})[:7]
	seeds["seed-len-above-max"] = raw(MsgMemData, 0, MaxBody+1, 0)
	seeds["seed-len-below-fixed"] = raw(MsgDone, 0, 8, 0, make([]byte, 8))
	seeds["seed-bad-flags"] = raw(MsgAccept, 0x8000, 16, 0, make([]byte, 16))
	return seeds
}

func corpusFile(data []byte) []byte {
	return []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
}

// TestFuzzCorpus keeps the committed seeds in step with fuzzSeeds; run
// with -update to rewrite them.
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	seeds := fuzzSeeds(t)
	if *update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, data := range seeds {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), corpusFile(data), 0o644))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(seeds)) {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if assert.NoError(t, err, "run go test -run TestFuzzCorpus -update") {
			assert.Equal(t, string(corpusFile(seeds[name])), string(got), "%s is stale: run with -update", name)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to the Decoder. It must never panic;
// every error is io.EOF or a *ProtocolError; and every message it accepts
// encodes back to bytes that decode to the same message.
func FuzzDecode(f *testing.F) {
	for _, data := range fuzzSeeds(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data))
		var buf bytes.Buffer
		e := NewEncoder(&buf)
		for range 64 {
			var m Msg
			err := d.Read(&m)
			if err != nil {
				var pe *ProtocolError
				if err != io.EOF && !errors.As(err, &pe) {
					t.Fatalf("error %T %v: want io.EOF or *ProtocolError", err, err)
				}
				return
			}
			buf.Reset()
			if err := e.Encode(&m); err != nil {
				t.Fatalf("re-encode %s: %v", m.Type, err)
			}
			e.Flush()
			var again Msg
			if err := NewDecoder(&buf).Read(&again); err != nil {
				t.Fatalf("decode of re-encoded %s: %v", m.Type, err)
			}
			if fmt.Sprintf("%+v", m) != fmt.Sprintf("%+v", again) {
				t.Fatalf("round trip changed the message:\n%+v\n%+v", m, again)
			}
		}
	})
}
