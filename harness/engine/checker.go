package engine

import (
	"strconv"
	"sync"

	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// checker does the checking of a run on its own goroutine, in window
// order, while the models simulate the next window: golden models,
// scoreboard and pcapng. The run loop keeps only what the next window
// needs (which frames were accepted, what crosses the links), so a run
// takes about the longer of model time and Go time instead of their sum.
// Order is fixed by the job queue, so results stay deterministic.
type checker struct {
	jobs  chan []job
	done  chan struct{}
	sb    *scoreboard.Scoreboard
	pcaps []*pcapio.LinkWriter
	err   error // first pcap write error; read after close or sync

	mu     sync.Mutex
	counts scoreboard.Counts // a snapshot for progress lines
}

// job is one thing to check, in the order the run produced them.
type job struct {
	kind  jobKind
	n     *node
	port  int
	seq   uint32
	cycle uint64
	data  []byte
	bad   bool
	pcap  int    // jobRecord: which of the run's pcapng files
	note  string // pcapng comment for jobRecord
	sync  chan bool
}

type jobKind uint8

const (
	jobAccept  jobKind = iota // feed the golden model; expect its outputs
	jobObserve                // check a DUT output on the scoreboard
	jobRecord                 // write a frame to its link's pcapng
	jobSync                   // answer whether nothing is outstanding
)

func newChecker(sb *scoreboard.Scoreboard, pcaps []*pcapio.LinkWriter) *checker {
	c := &checker{jobs: make(chan []job, 4), done: make(chan struct{}), sb: sb, pcaps: pcaps}
	go c.loop()
	return c
}

func (c *checker) loop() {
	defer close(c.done)
	for batch := range c.jobs {
		for i := range batch {
			c.do(&batch[i])
		}
		c.mu.Lock()
		c.counts = c.sb.Counts()
		c.mu.Unlock()
	}
}

func (c *checker) do(j *job) {
	switch j.kind {
	case jobAccept:
		// "icrc.in0 #17": built without fmt, this runs for every frame.
		cause := j.n.name + ".in" + strconv.Itoa(j.port) + " #" + strconv.FormatUint(uint64(j.seq), 10)
		for _, o := range j.n.golden.Accept(j.port, j.cycle, j.data, j.bad) {
			c.sb.Expect(scoreboard.Stream{Model: j.n.name, Port: o.Port}, scoreboard.Expected{Data: o.Data, Bad: o.Bad, Cause: cause})
		}
	case jobObserve:
		c.sb.Observe(scoreboard.Stream{Model: j.n.name, Port: j.port}, scoreboard.Frame{Cycle: j.cycle, Data: j.data, Bad: j.bad})
	case jobRecord:
		if c.err == nil {
			if j.note != "" {
				c.err = c.pcaps[j.pcap].WriteFrameOn(0, j.cycle, j.data, j.note)
			} else {
				c.err = c.pcaps[j.pcap].WriteFrame(j.cycle, j.data)
			}
		}
	case jobSync:
		j.sync <- c.sb.Outstanding() == 0
	}
}

// submit queues a window's jobs; it blocks only when the checker is
// several windows behind.
func (c *checker) submit(batch []job) {
	if len(batch) > 0 {
		c.jobs <- batch
	}
}

// settled waits for the checker to catch up and reports whether every
// expected frame has come out.
func (c *checker) settled() bool {
	ch := make(chan bool, 1)
	c.jobs <- []job{{kind: jobSync, sync: ch}}
	return <-ch
}

// close waits for every queued job and ends the goroutine.
func (c *checker) close() error {
	close(c.jobs)
	<-c.done
	return c.err
}

// snapshot returns the scoreboard counts as of the last checked window.
func (c *checker) snapshot() scoreboard.Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}
