package bridge

import (
	"errors"
	"fmt"
	"io"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/inputfile"
	"github.com/rocesim/cosim/harness/pcapio"
)

// Recording is a live session's host frames, read back for a replay.
type Recording struct {
	Path string
	Seed uint64 // the session's seed
	// Scenario is the session's scenario as it was given (TOML).
	Scenario []byte
	// Frames holds each tap's frames in the order they entered, with the
	// cycle they entered at.
	Frames map[string][]engine.TapFrame
}

// LoadRecording reads a recording (RecordingFile of a bridge session).
func LoadRecording(path string) (*Recording, error) {
	comment, err := sectionComment(path)
	if err != nil {
		return nil, err
	}
	seed, text, err := parseHeader(comment)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rec := &Recording{Path: path, Seed: seed, Scenario: text, Frames: map[string][]engine.TapFrame{}}
	r, err := pcapio.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rec, nil
		}
		if err != nil {
			return nil, err
		}
		fs := rec.Frames[p.InterfaceName]
		switch {
		case !p.HasCycle:
			return nil, fmt.Errorf("%s: packet %d has no cycle comment", path, p.Index)
		case p.Truncated():
			return nil, fmt.Errorf("%s: packet %d is truncated", path, p.Index)
		case len(fs) > 0 && p.Cycle < fs[len(fs)-1].Cycle:
			return nil, fmt.Errorf("%s: packet %d on %s goes back in time (cycle %d after %d)", path, p.Index, p.InterfaceName, p.Cycle, fs[len(fs)-1].Cycle)
		}
		rec.Frames[p.InterfaceName] = append(fs, engine.TapFrame{Cycle: p.Cycle, Data: p.Data})
	}
}

// sectionComment is the comment of the file's first pcapng section.
func sectionComment(path string) (string, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		return "", fmt.Errorf("%s: not a pcapng recording: %w", path, err)
	}
	return r.SectionInfo().Comment, nil
}

// Ends returns an engine.TapEnd per tap of the scenario (names), each
// giving the recorded frames at their cycles; frames to the host are
// counted and go nowhere. A tap without frames gets an empty end.
func (rec *Recording) Ends(names []string) map[string]engine.TapEnd {
	ends := map[string]engine.TapEnd{}
	for _, n := range names {
		ends[n] = &replayed{frames: rec.Frames[n]}
	}
	for n, fs := range rec.Frames {
		if ends[n] == nil {
			ends[n] = &replayed{frames: fs} // the engine reports the stranger
		}
	}
	return ends
}

// replayed is a recorded tap.
type replayed struct {
	frames []engine.TapFrame
	next   int
	out    int
}

func (r *replayed) Take(_, end uint64, _ int) []engine.TapFrame {
	i := r.next
	for r.next < len(r.frames) && r.frames[r.next].Cycle < end {
		r.next++
	}
	return r.frames[i:r.next]
}

func (r *replayed) Next() (uint64, bool) {
	if r.next >= len(r.frames) {
		return 0, false
	}
	return r.frames[r.next].Cycle, true
}

func (r *replayed) Deliver(uint64, []byte) { r.out++ }

func (r *replayed) Stats() engine.TapStats {
	return engine.TapStats{FramesIn: r.next, FramesOut: r.out, Drops: map[string]int{}}
}
