package engine

import (
	"sync"
	"time"

	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// checker does the checking of a run on its own goroutine, in window
// order, while the models simulate the next window: golden models and
// scoreboard, and it hands the pcapng records to a recorder goroutine of
// their own (writing big frames costs as much as checking them). The run
// loop keeps only what the next window needs (which frames were accepted,
// what crosses the links), so a run takes about the longest of model
// time, checking and recording instead of their sum. Order is fixed by
// the job queues, so results stay deterministic.
type checker struct {
	jobs   chan []job
	free   chan []job // checked batches, emptied, for the run loop to fill again
	sync   chan bool  // answers jobSync
	done   chan struct{}
	sb     *scoreboard.Scoreboard
	series seriesSet            // the golden models' samples (Sampler)
	pcaps  []*pcapio.LinkWriter // none with Config.NoLinkPcaps: record jobs are dropped

	records     chan []job // jobRecord only, in job order, to the recorder
	recordsFree chan []job
	recorded    chan struct{} // closed when the recorder has ended
	err         error         // first pcap write error (the recorder's); read after close

	mu     sync.Mutex
	counts scoreboard.Counts // a snapshot for progress lines

	// waited is how long the run loop waited for the checker to take a
	// batch or to catch up (Summary.Waited); only the run loop touches it.
	waited time.Duration
}

// job is one thing to check, in the order the run produced them. There
// are several per frame, so it is kept small: 64 bytes.
type job struct {
	data  []byte
	n     *node
	cycle uint64
	last  uint64 // jobAccept: the input's last beat
	seq   uint32
	port  uint16
	pcap  uint16 // jobRecord: which of the run's pcapng files
	kind  jobKind
	bad   bool
	note  note // jobRecord: the pcapng comment after the cycle
}

// note is a pcapng comment of a recorded frame.
type note uint8

const (
	noteNone note = iota
	noteLost
	noteCorrupted
	noteDuplicated
	noteReordered
	noteCorruptedDuplicated
	noteCorruptedReordered
)

var noteText = [...]string{
	noteLost:                "lost on the link (fault injection)",
	noteCorrupted:           "corrupted on the link (fault injection)",
	noteDuplicated:          "delivered twice by the link (fault injection)",
	noteReordered:           "held back by the link, later frames overtake it (fault injection)",
	noteCorruptedDuplicated: "corrupted on the link and delivered twice (fault injection)",
	noteCorruptedReordered:  "corrupted on the link and held back, later frames overtake it (fault injection)",
}

type jobKind uint8

const (
	jobAccept   jobKind = iota // feed the golden model; expect its outputs
	jobAdvance                 // a window ended: expect a timed golden model's outputs
	jobObserve                 // check a DUT output on the scoreboard
	jobRecord                  // write a frame to its link's pcapng
	jobSync                    // answer whether nothing is outstanding
	jobCSRWrite                // a CSRGolden hears a write: seq the address, last the data, at cycle
	jobMemWrite                // a MemGolden hears a host memory write: last the address
)

// queued is how many batches the checker may fall behind before the run
// loop waits for it; a batch holds at most chunk jobs (a long window is
// handed over in pieces, so batches are recycled instead of growing).
const (
	queued = 16
	chunk  = 4096
)

func newChecker(sb *scoreboard.Scoreboard, pcaps []*pcapio.LinkWriter) *checker {
	c := &checker{jobs: make(chan []job, queued), free: make(chan []job, queued+2), sync: make(chan bool, 1),
		done: make(chan struct{}), sb: sb, pcaps: pcaps,
		records: make(chan []job, queued), recordsFree: make(chan []job, queued+2), recorded: make(chan struct{})}
	go c.loop()
	go c.record()
	return c
}

func (c *checker) loop() {
	defer close(c.done)
	defer close(c.records)
	for batch := range c.jobs {
		var records []job
		select {
		case records = <-c.recordsFree:
		default:
		}
		for i := range batch {
			if batch[i].kind == jobRecord {
				if len(c.pcaps) > 0 {
					records = append(records, batch[i])
				}
				continue
			}
			c.do(&batch[i])
		}
		if len(records) > 0 {
			c.records <- records
		}
		c.mu.Lock()
		c.counts = c.sb.Counts()
		c.mu.Unlock()
		// Hand the batch back for reuse, holding on to no frame: a
		// window's batch is big, and growing a new one every window
		// was a good part of the run's allocations.
		clear(batch)
		select {
		case c.free <- batch[:0]:
		default:
		}
	}
}

// batch returns an empty job list to fill for the next window, reusing
// one the checker is done with when there is one.
func (c *checker) batch() []job {
	select {
	case b := <-c.free:
		return b
	default:
		return nil
	}
}

func (c *checker) do(j *job) {
	switch j.kind {
	case jobAccept:
		// The cause reads "icrc.in0 #17"; the scoreboard builds that text
		// only for a report, not for every frame.
		for _, o := range j.n.golden.Accept(int(j.port), j.cycle, j.last, j.data, j.bad) {
			if j.n.unchecked[o.Port] {
				continue
			}
			c.sb.Expect(scoreboard.Stream{Model: j.n.name, Port: o.Port, Sub: o.Sub}, scoreboard.Expected{
				Data: o.Data, Bad: o.Bad, Cause: j.n.inNames[j.port], CauseSeq: j.seq, HasCauseSeq: true,
				Cycle: o.Cycle, HasCycle: o.HasCycle})
		}
	case jobAdvance:
		for _, o := range j.n.golden.Advance(j.cycle) {
			if j.n.unchecked[o.Port] {
				continue
			}
			c.sb.Expect(scoreboard.Stream{Model: j.n.name, Port: o.Port, Sub: o.Sub}, scoreboard.Expected{
				Data: o.Data, Bad: o.Bad, Cause: j.n.goldenCause, Cycle: o.Cycle, HasCycle: o.HasCycle})
		}
		c.series.sample(j.n.name, j.n.golden, j.cycle)
	case jobObserve:
		st := scoreboard.Stream{Model: j.n.name, Port: int(j.port)}
		if sub, ok := j.n.golden.(Substreams); ok {
			st.Sub = sub.Sub(st.Port, j.data)
		}
		c.sb.Observe(st, scoreboard.Frame{Cycle: j.cycle, Data: j.data, Bad: j.bad})
	case jobSync:
		c.sync <- c.sb.Outstanding() == 0
	case jobCSRWrite:
		if g, ok := j.n.golden.(CSRGolden); ok {
			g.CSRWrite(j.seq, uint32(j.last), j.cycle)
		}
	case jobMemWrite:
		if g, ok := j.n.golden.(MemGolden); ok {
			g.MemWrite(j.last, j.data, j.cycle)
		}
	}
}

// record writes the pcapng records the checker hands over, in order,
// until the checker ends.
func (c *checker) record() {
	defer close(c.recorded)
	for batch := range c.records {
		for i := range batch {
			j := &batch[i]
			if c.err != nil {
				break
			}
			if j.note != noteNone {
				c.err = c.pcaps[j.pcap].WriteFrameOn(0, j.cycle, j.data, noteText[j.note])
			} else {
				c.err = c.pcaps[j.pcap].WriteFrame(j.cycle, j.data)
			}
		}
		clear(batch)
		select {
		case c.recordsFree <- batch[:0]:
		default:
		}
	}
}

// flush hands batch to the checker once it holds chunk jobs and returns
// the batch to go on with.
func (c *checker) flush(batch []job) []job {
	if len(batch) < chunk {
		return batch
	}
	c.submit(batch)
	if b := c.batch(); b != nil {
		return b
	}
	return make([]job, 0, chunk)
}

// submit queues a window's jobs; it blocks only when the checker is
// several windows behind.
func (c *checker) submit(batch []job) {
	if len(batch) == 0 {
		return
	}
	select {
	case c.jobs <- batch:
	default:
		t := time.Now()
		c.jobs <- batch
		c.waited += time.Since(t)
	}
}

// settled waits for the checker to catch up and reports whether every
// expected frame has come out.
func (c *checker) settled() bool {
	t := time.Now()
	defer func() { c.waited += time.Since(t) }()
	c.jobs <- append(c.batch(), job{kind: jobSync})
	return <-c.sync
}

// close waits for every queued job and ends the goroutines.
func (c *checker) close() error {
	close(c.jobs)
	<-c.done
	<-c.recorded
	return c.err
}

// snapshot returns the scoreboard counts as of the last checked window.
func (c *checker) snapshot() scoreboard.Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}
