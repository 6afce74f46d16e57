package bridge

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
)

// RecordingFile is the recording's name in a session's output directory.
const RecordingFile = "recording.pcapng"

// recordingMagic opens the section comment of a recording; the number is
// the format's version.
const recordingMagic = "cosim recording 1"

// recorder writes the recording: every frame a host sent, as it entered
// the simulation, stamped with that cycle. It is written from the engine's
// loop only (port.Take), so it needs no lock.
type recorder struct {
	w       *pcapio.LinkWriter
	err     error
	flushed time.Time
}

// header is the recording's section comment: the magic line, key=value
// lines, an empty line, then the scenario's TOML as it was given.
func header(sc *scenario.Scenario, text []byte, seed uint64) string {
	return fmt.Sprintf("%s\nseed=%d\nscenario=%s\n\n%s", recordingMagic, seed, sc.Name, text)
}

// newRecorder creates path with one pcapng interface per tap, named by
// the tap, in scenario order; link numbers follow that order.
func newRecorder(path string, sc *scenario.Scenario, text []byte, seed uint64) (*recorder, error) {
	w, err := pcapio.CreateLinkFile(path, sc.Taps[0].Name, pcapio.LinkWriterOptions{
		ClockPeriodPS:  clockPeriodPS(sc),
		SectionComment: header(sc, text, seed),
	})
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	for _, t := range sc.Taps[1:] {
		if _, err := w.AddLink(t.Name); err != nil {
			w.Close()
			return nil, fmt.Errorf("recording: %w", err)
		}
	}
	return &recorder{w: w, flushed: time.Now()}, nil
}

// clockPeriodPS is the engine's: the recording's timestamps match the
// run's pcapng files.
func clockPeriodPS(sc *scenario.Scenario) uint64 { return uint64(1e6/sc.ClockMHz + 0.5) }

// write records a frame; the first error sticks and is reported by close.
// The file is flushed about once a second, so a session that dies still
// leaves most of its recording.
func (r *recorder) write(link int, cycle uint64, data []byte) {
	if r.err != nil {
		return
	}
	r.err = r.w.WriteFrameOn(link, cycle, data)
	if r.err == nil && time.Since(r.flushed) > time.Second {
		r.err = r.w.Flush()
		r.flushed = time.Now()
	}
}

func (r *recorder) close() error {
	err := r.w.Close()
	if r.err != nil {
		return fmt.Errorf("recording: %w", r.err)
	}
	return err
}

// parseHeader reads a recording's section comment.
func parseHeader(comment string) (seed uint64, text []byte, err error) {
	head, body, ok := bytes.Cut([]byte(comment), []byte("\n\n"))
	lines := bytes.Split(head, []byte("\n"))
	if !ok || string(lines[0]) != recordingMagic {
		return 0, nil, fmt.Errorf("not a cosim recording (its section comment does not start with %q)", recordingMagic)
	}
	seen := false
	for _, l := range lines[1:] {
		k, v, _ := bytes.Cut(l, []byte("="))
		if string(k) == "seed" {
			if seed, err = strconv.ParseUint(string(v), 10, 64); err != nil {
				return 0, nil, fmt.Errorf("recording header: seed %q: %w", v, err)
			}
			seen = true
		}
	}
	if !seen {
		return 0, nil, fmt.Errorf("recording header has no seed")
	}
	return seed, body, nil
}
