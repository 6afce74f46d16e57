package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/pcapio"
)

// start launches and handshakes every model, in parallel, and opens one
// pcapng per link, source and unlinked output.
func (r *run) start(ctx context.Context) error {
	var names []string
	for _, s := range r.sources {
		names = append(names, fmt.Sprintf("%s->%s", s.name, portRef{s.model, s.port}.in()))
	}
	for _, l := range r.links {
		names = append(names, l.name)
	}
	for _, n := range r.nodes {
		for p := 0; p < n.top.Out; p++ {
			if n.links[p] == nil {
				names = append(names, n.sinkName(p))
			}
		}
	}
	for _, tp := range r.taps {
		if tp.hasIn {
			names = append(names, tp.name+"->"+tp.in.in())
		}
	}
	if r.session {
		for _, n := range r.nodes {
			for p := range n.top.In {
				names = append(names, "test->"+portRef{n.name, p}.in())
			}
		}
	}
	if len(names) > math.MaxUint16 { // jobs number the files in 16 bits
		return fmt.Errorf("%s: %d links, sources and outputs to capture: at most %d", r.sc.File, len(names), math.MaxUint16)
	}
	ifaces := make([]int, len(names))
	for i, nm := range names {
		if r.cfg.NoLinkPcaps {
			continue // the checker drops the frames' record jobs
		}
		w, err := pcapio.CreateLinkFile(filepath.Join(r.cfg.OutDir, PcapName(nm)), nm, pcapio.LinkWriterOptions{
			ClockPeriodPS:  uint64(1e6/r.sc.ClockMHz + 0.5),
			SectionComment: fmt.Sprintf("scenario=%s seed=%d link=%s", r.sc.Name, r.cfg.Seed, nm),
		})
		if err != nil {
			return err
		}
		ifaces[i] = len(r.pcaps)
		r.pcaps = append(r.pcaps, w)
	}
	r.check = newChecker(r.sb, r.pcaps)
	k := 0
	for _, s := range r.sources {
		r.srcPcap[s] = ifaces[k]
		k++
	}
	for _, l := range r.links {
		l.pcap = ifaces[k]
		k++
	}
	for _, n := range r.nodes {
		for p := 0; p < n.top.Out; p++ {
			if n.links[p] == nil {
				n.sinks[p] = ifaces[k]
				k++
			}
		}
	}
	for _, tp := range r.taps {
		if tp.hasIn {
			tp.pcap = ifaces[k]
			k++
		}
	}
	if r.session {
		for _, n := range r.nodes {
			n.injectPcap = ifaces[k : k+n.top.In]
			k += n.top.In
		}
	}
	return r.parallel(func(n *node) error {
		var mod *cosim.Model
		var err error
		if remote := n.spec.Remote; remote != "" {
			mod, err = cosim.Dial(ctx, n.name, "tcp", remote)
			if err == nil {
				mod.SetTimeouts(r.cfg.Timeouts)
			}
		} else {
			mod, err = cosim.Start(ctx, r.modelConfig(n))
		}
		if err != nil {
			return err
		}
		n.m = mod
		ack := cosim.HelloAck{Seed: backpressureSeed(r.cfg.Seed, n.name),
			SrcGapPct: uint16(n.spec.SrcGapPct), SinkStallPct: uint16(n.spec.SinkStallPct)}
		if r.cfg.Trace {
			ack.Trace, ack.TracePath = true, filepath.Join(r.cfg.OutDir, n.name+".fst")
		} else if w := r.cfg.TraceWindow; w != nil && w.Files[n.name] != "" {
			ack.Trace, ack.TracePath, ack.TraceFrom, ack.TraceTo = true, w.Files[n.name], w.From, w.To
		}
		h, err := mod.Handshake(ctx, ack)
		if err != nil {
			return err
		}
		if int(h.DataWidth) != n.width || int(h.InPorts) != n.top.In || int(h.OutPorts) != n.top.Out {
			return fmt.Errorf("model %s: the binary reports data width %d and %d/%d ports; the scenario wants %d bits and top %s has %d/%d",
				n.name, h.DataWidth, h.InPorts, h.OutPorts, n.width, n.top.Name, n.top.In, n.top.Out)
		}
		return nil
	})
}

// sinkName names the pcapng of an output that feeds no link: "sw.out0->h1"
// for one attached to tap h1, else "sw.out0->sink".
func (n *node) sinkName(p int) string {
	if t, ok := n.taps[p]; ok {
		return portRef{n.name, p}.out() + "->" + t.name
	}
	return portRef{n.name, p}.out() + "->sink"
}

func (r *run) modelConfig(n *node) cosim.Config {
	path := ModelPath(r.cfg.ModelDir, n.top, n.width)
	return cosim.Config{Name: n.name, Path: path, Args: r.coverageArgs(n), Timeouts: r.cfg.Timeouts, SharedMemory: true}
}

// parallel runs f on every node at once and returns the first error in
// node order, so reports do not depend on scheduling.
func (r *run) parallel(f func(*node) error) error {
	if len(r.nodes) == 1 {
		// One model: no goroutine to start and wake, which costs a live
		// run's short windows about as much as the model's work.
		return f(r.nodes[0])
	}
	var wg sync.WaitGroup
	errs := make([]error, len(r.nodes))
	for i, n := range r.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(n)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// timedParallel is parallel for a window's exchange with the models,
// whose wall time it adds to the run's wait for them.
func (r *run) timedParallel(f func(*node) error) error {
	t := time.Now()
	err := r.parallel(f)
	r.waitModels += time.Since(t)
	return err
}

// closeModels stops every model; what a model never accepted counts as
// stuck.
func (r *run) closeModels() {
	for _, n := range r.nodes {
		if n.m != nil {
			n.m.Close()
		}
		for i := range n.sent {
			r.stuck += n.sent[i].Len()
		}
	}
}
