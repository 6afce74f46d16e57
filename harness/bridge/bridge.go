package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/tap"
)

// Config is one live session.
type Config struct {
	Scenario *scenario.Scenario
	// Text is the scenario's TOML as given; the recording keeps it, so a
	// replay needs nothing but the recording.
	Text     []byte
	Seed     uint64
	OutDir   string // summary.json, a pcapng per link, the recording
	ModelDir string
	Report   io.Writer // mismatch reports
	// Status gets a line of live counters every StatusEvery (default 1 s);
	// nil for none. On a terminal (StatusTTY) the line is redrawn in place.
	Status      io.Writer
	StatusTTY   bool
	StatusEvery time.Duration
	// Devices are TAPs the caller opened (tests, tap-demo), by tap name;
	// the session uses them instead of opening the scenario's device, and
	// leaves closing them to the caller.
	Devices  map[string]Device
	Timeouts cosim.Timeouts
	// DrainTimeout bounds the drain after Stop (default 30 s); then the
	// run is cut short and reports so.
	DrainTimeout time.Duration
	// KeepWarm, when positive: while hosts are active (until 2 s after
	// their last frame), an idle session steps an empty short window this
	// often instead of sleeping, so the model process stays in the CPU
	// caches and a lone frame (a ping) gets through it sooner
	// (DefaultKeepWarm is what the commands use, and why). It changes no
	// result: an empty window only moves simulated time on, and the
	// recording holds the cycle every frame entered at, so a replay is
	// byte-identical all the same.
	KeepWarm time.Duration
	// NoLinkPcaps: no pcapng per link (engine.Config.NoLinkPcaps). The
	// recording is still written, and its replay writes the captures: a
	// long session at hundreds of Mbit/s would otherwise write every frame
	// three times (recording, host link, switch link), gigabytes a minute.
	NoLinkPcaps bool
	// Boost: more Go threads and a higher model priority while hosts
	// stream (boost.go); the zero value changes nothing.
	Boost Boost
}

// Session is a running bridge.
type Session struct {
	cfg     Config
	live    *live
	opened  []*tap.TAP // closed when the run ends
	rec     *recorder
	status  *status
	gov     *governor
	cancel  context.CancelFunc
	stopped sync.Once
	done    chan struct{}
	sum     *engine.Summary
	err     error
}

// Start opens (or creates, as the scenario says) every tap's device that
// Devices does not supply, starts the models and begins bridging. A
// device that is not a TAP, or is missing and not to be created, is
// refused by harness/tap; on any error, what Start opened is closed.
func Start(cfg Config) (*Session, error) {
	sc := cfg.Scenario
	if len(sc.Taps) == 0 {
		return nil, fmt.Errorf("%s: no [[tap]]: nothing to bridge (cosim run runs closed scenarios)", sc.File)
	}
	if cfg.DrainTimeout == 0 {
		cfg.DrainTimeout = 30 * time.Second
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, live: newLive(max(cfg.KeepWarm, 0)), done: make(chan struct{})}
	devs, err := s.devices()
	if err != nil {
		s.closeOpened()
		return nil, err
	}
	if s.rec, err = newRecorder(filepath.Join(cfg.OutDir, RecordingFile), sc, cfg.Text, cfg.Seed); err != nil {
		s.closeOpened()
		return nil, err
	}
	ends := map[string]engine.TapEnd{}
	for i, t := range sc.Taps {
		// A tap without an input still reads its host, to count what it
		// sends (dropped, no_input) instead of letting the kernel lose it.
		p := newPort(t.Name, devs[i], t.In != "", t.Queue, s.live.wake, s.rec, i)
		ends[t.Name] = p
		s.live.ports = append(s.live.ports, p)
	}
	s.status = newStatus(cfg, s.live.ports)
	s.gov = newGovernor(cfg.Boost, s.live.queued.Load, s.live.streaming.Store, cfg.Status)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.live.start()
	go s.run(ctx, engine.Config{
		Scenario: sc, Seed: cfg.Seed, OutDir: cfg.OutDir, ModelDir: cfg.ModelDir, Report: cfg.Report,
		Timeouts: cfg.Timeouts, Taps: ends, Live: s.live, LiveWindow: sc.Bridge.Window, LiveMaxWindow: sc.Bridge.MaxWindow,
		Status: s.status.update, NoLinkPcaps: cfg.NoLinkPcaps, Started: s.gov.start,
	})
	return s, nil
}

// devices opens what the caller did not supply, in scenario order.
func (s *Session) devices() ([]Device, error) {
	var devs []Device
	for _, t := range s.cfg.Scenario.Taps {
		if d, ok := s.cfg.Devices[t.Name]; ok {
			devs = append(devs, d)
			continue
		}
		tc := tap.Config{Name: t.Device, Mode: tap.ModeOpen, MTU: t.MTU, Offload: t.Offload}
		if t.Create {
			tc.Mode, tc.Persist = tap.ModeCreate, t.Persist
			if t.Owner != nil || t.Group != nil {
				tc.Owner = &tap.Owner{UID: os.Getuid(), GID: -1}
				if t.Owner != nil {
					tc.Owner.UID = *t.Owner
				}
				if t.Group != nil {
					tc.Owner.GID = *t.Group
				}
			}
		}
		d, err := tap.Open(tc)
		if err != nil {
			return nil, fmt.Errorf("tap %s: %w", t.Name, err)
		}
		s.opened = append(s.opened, d)
		devs = append(devs, d)
	}
	return devs, nil
}

func (s *Session) closeOpened() {
	for _, d := range s.opened {
		d.Close() // a TAP this session created and did not persist goes with it
	}
}

func (s *Session) run(ctx context.Context, cfg engine.Config) {
	defer close(s.done)
	stopStatus := s.status.start()
	sum, err := engine.Run(ctx, cfg)
	s.gov.end()
	// The run may end on its own (a model died): stop reading either way.
	s.live.stop()
	s.live.closeWriters()
	if sum != nil {
		// The last line shows the final count, checked to the end.
		s.status.update(engine.Status{Cycle: sum.Cycles, Windows: sum.Windows, FramesIn: sum.FramesIn, FramesOut: sum.FramesOut,
			Matched: sum.Matched, Mismatched: sum.Mismatched, Unexpected: sum.Unexpected})
	}
	stopStatus()
	s.cancel()
	s.closeOpened()
	s.sum, s.err = sum, errors.Join(err, s.rec.close())
}

// Stop ends the session cleanly: no more host frames are read, what is in
// flight drains through the models and is checked, and the summary, the
// pcapng files and the recording are written. It returns at once; Wait
// for the end. A drain longer than DrainTimeout is cut short.
func (s *Session) Stop() {
	s.stopped.Do(func() {
		go func() {
			s.live.stop()
			select {
			case <-s.done:
			case <-time.After(s.cfg.DrainTimeout):
				s.cancel()
			}
		}()
	})
}

// Cycle returns the simulated cycle the session has reached, as of the
// last window the models ran.
func (s *Session) Cycle() uint64 { return s.status.cycle() }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Wait waits for the end and returns the summary (also in summary.json)
// and why the run did not complete, if it did not.
func (s *Session) Wait() (*engine.Summary, error) {
	<-s.done
	return s.sum, s.err
}
