package rc_test

// TestBehaviour pins every rule of doc.go with one scripted case of the
// behaviour table (package behaviour, one case per rule): a single Node
// under test faces a peer whose frames are built there, independently of
// the model's own builder (gopacket layers and the roce codecs). Each step
// happens at an exact cycle: a work request is posted, a peer frame
// arrives, the host writes its memory, or the node is polled until it has
// nothing more to send, and then every frame it sent is compared byte for
// byte with the expected ones (also built there), every completion field
// by field, and, where given, NextEvent and the DCQCN rate. At the end of a
// case the QP's counters (all of them), the node's own counters (all 0),
// the OnEvent reports, the error state, the host memory and the responder
// queue's high-water mark are compared too. rtl/nic/tb's TestNICBehaviour plays
// the same table against the NIC RTL.

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/rc/behaviour"
)

func TestBehaviour(t *testing.T) {
	for _, c := range behaviour.Cases() {
		t.Run(c.Name, func(t *testing.T) { bhvRun(t, &c) })
	}
}

// bhvRun plays c against a fresh node.
func bhvRun(t *testing.T, c *behaviour.Case) {
	nc, qc := c.Config()
	mem := rc.NewSparseMemory()
	n, err := rc.NewNode(nc, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, mr := range behaviour.MRs() {
		if err := n.RegisterMR(mr); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.AddQP(qc); err != nil {
		t.Fatal(err)
	}
	var events []rc.Event
	n.OnEvent = func(e rc.Event) { events = append(events, e) }
	for _, ch := range c.Mem {
		mem.Write(ch.Addr, ch.Data)
	}

	buf := make([]byte, rc.MaxFrameLen)
	var last uint64
	for i, s := range c.Steps {
		if s.At < last {
			t.Fatalf("step %d at cycle %d goes back in time (previous %d)", i, s.At, last)
		}
		last = s.At
		where := fmt.Sprintf("step %d (cycle %d)", i, s.At)
		switch s.Kind {
		case behaviour.Post:
			if err := n.PostSend(behaviour.QPN, s.WR, s.At); err != nil {
				t.Fatalf("%s: PostSend: %v", where, err)
			}
		case behaviour.PostRecv:
			if err := n.PostRecv(behaviour.QPN, s.RR, s.At); err != nil {
				t.Fatalf("%s: PostRecv: %v", where, err)
			}
		case behaviour.In:
			n.Receive(behaviour.Build(behaviour.PeerEnd, behaviour.NodeEnd, s.In), s.At)
		case behaviour.Poke:
			mem.Write(s.Poke.Addr, s.Poke.Data)
		case behaviour.Expect:
			bhvExpect(t, where, n, s, buf)
		}
	}

	if comps := n.TakeCompletions(); len(comps) > 0 {
		t.Errorf("completions after the last expect step: %v", comps)
	}
	qpc, _ := n.QPCounters(behaviour.QPN)
	for i := range rc.NumCounters {
		if cn := rc.Counter(i); qpc[cn] != c.Counters[cn] {
			t.Errorf("counter %v = %d, want %d", cn, qpc[cn], c.Counters[cn])
		}
	}
	all := n.Counters()
	for i := range rc.NumCounters {
		if d := all[i] - qpc[i]; d != 0 {
			t.Errorf("node counter %v = %d, want 0 (no frame is dropped before its QP is known)", rc.Counter(i), d)
		}
	}
	if !slices.Equal(events, c.Events) {
		t.Errorf("OnEvent reports:\n%s\nwant:\n%s", behaviour.List(events), behaviour.List(c.Events))
	}
	if got := n.QPInError(behaviour.QPN); got != c.InError {
		t.Errorf("QP in error state: %v, want %v", got, c.InError)
	}
	if got := rc.RespHighWater(n, behaviour.QPN); c.RespHigh != 0 && got != c.RespHigh {
		t.Errorf("responder queue high-water %d, want %d", got, c.RespHigh)
	}
	for _, ch := range c.WantMem {
		got := make([]byte, len(ch.Data))
		mem.Read(ch.Addr, got)
		if i := behaviour.FirstDiff(got, ch.Data); i >= 0 {
			t.Errorf("memory at %#x+%d: %#02x, want %#02x (%d bytes checked)", ch.Addr, i, got[i], ch.Data[i], len(ch.Data))
		}
	}
}

// bhvExpect polls the node at s.At until it has nothing more to send and
// compares what it sent, its completions, NextEvent and its rate.
func bhvExpect(t *testing.T, where string, n *rc.Node, s behaviour.Step, buf []byte) {
	t.Helper()
	var got [][]byte
	for len(got) <= len(s.Out)+64 {
		f, ok := n.Poll(s.At, buf)
		if !ok {
			break
		}
		got = append(got, bytes.Clone(f))
	}
	want := make([][]byte, len(s.Out))
	for i, f := range s.Out {
		want[i] = behaviour.Build(behaviour.NodeEnd, behaviour.PeerEnd, f)
	}
	if d := behaviour.DiffFrames(where, got, want); d != "" {
		t.Error(d)
	}

	comps := slices.Clone(n.TakeCompletions())
	if !slices.Equal(comps, s.Comps) {
		t.Errorf("%s: completions:\n%s\nwant:\n%s", where, behaviour.List(comps), behaviour.List(s.Comps))
	}

	if d := behaviour.DiffPlanner(where, n, s, 0); d != "" {
		t.Error(d)
	}
}
