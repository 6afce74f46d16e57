package scenario

import (
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Tap attaches a Linux TAP device to a model's ports, for `cosim bridge`
// (live) and `cosim run --replay` (a recording of a live session). Frames
// the host sends enter In; frames the model emits on Out go to the host.
type Tap struct {
	// Name is what reports, pcapng files and recordings call the tap
	// ("h1->sw.in0.pcapng"); it does not change between a live session
	// and its replay.
	Name string `toml:"name"`
	// Device is the interface name (default: Name).
	Device string `toml:"device"`
	In     string `toml:"in"`  // "model.inN"
	Out    string `toml:"out"` // "model.outN"
	// Create makes the TAP when it does not exist (needs CAP_NET_ADMIN);
	// without it the bridge attaches only to a TAP that exists.
	Create bool `toml:"create"`
	// Persist keeps a TAP this run created after it ends; Owner and Group
	// (numeric ids) may then open it later without root.
	Persist bool `toml:"persist"`
	Owner   *int `toml:"owner"`
	Group   *int `toml:"group"`
	// MTU is set on a TAP the bridge creates; an existing one must match.
	MTU int `toml:"mtu"`
	// Offload opens the TAP with segmentation offload (tap.Config.Offload):
	// the host hands over TCP super-packets, cut into wire frames before
	// the simulation, and gets runs of a flow's segments joined.
	Offload bool `toml:"offload"`
	// Queue bounds the frames waiting for the simulation (default 1024);
	// a frame that finds it full is dropped and counted (queue_full).
	Queue int `toml:"queue"`
}

// Bridge tunes live sessions (`cosim bridge`); a replay ignores it.
type Bridge struct {
	// Window is the window length in cycles while a few frames are in
	// flight, MaxWindow the longest while hosts send faster than that
	// (0: the engine's defaults). Short windows keep latency low, long
	// ones carry more frames per round trip to the models.
	Window    uint64 `toml:"window"`
	MaxWindow uint64 `toml:"max_window"`
}

// DefaultTapQueue is Tap.Queue when the scenario leaves it out: 1.5 MB of
// full frames. With 256, a TCP sender's bursts overflowed it a thousand
// times or more in a 5-second stream of make tap-demo; with 1024 it
// retransmitted nothing.
const DefaultTapQueue = 1024

// maxTapQueue keeps a typo from reserving gigabytes of frames.
const maxTapQueue = 1 << 20

func (s *Scenario) tapDefaults() {
	for i := range s.Taps {
		t := &s.Taps[i]
		if t.Device == "" {
			t.Device = t.Name
		}
		if t.Queue == 0 {
			t.Queue = DefaultTapQueue
		}
	}
}

// checkTaps validates the [[tap]] tables: names, ports (each input and
// output used by one tap at most, no output that also feeds a link) and
// the creation options.
func (s *Scenario) checkTaps(bad func(toml.Key, string, ...any) error) error {
	names := map[string]bool{}
	ins, outs := map[string]bool{}, map[string]bool{}
	for _, m := range s.Models {
		names[m.Name] = true // a tap named like a model would make confusing file names
	}
	linked := map[string]bool{}
	for _, l := range s.Links {
		linked[l.From] = true
	}
	for i, t := range s.Taps {
		k := func(f string) toml.Key { return toml.Key{"tap", strconv.Itoa(i), f} }
		switch {
		case !validName.MatchString(t.Name):
			return bad(k("name"), "%q is not a valid tap name (letters, digits, '_' and '-')", t.Name)
		case names[t.Name]:
			return bad(k("name"), "%q is already the name of a model or another tap", t.Name)
		case !validDevice(t.Device):
			return bad(k("device"), "%q is not a valid interface name (1 to 15 bytes, no '/', ':' or spaces)", t.Device)
		case t.In == "" && t.Out == "":
			return bad(k("in"), "a tap needs in, out or both")
		}
		names[t.Name] = true
		if t.In != "" {
			if _, _, err := s.port(t.In, "in"); err != nil {
				return bad(k("in"), "%v", err)
			}
			if ins[t.In] {
				return bad(k("in"), "%s is fed by another tap", t.In)
			}
			ins[t.In] = true
		}
		if t.Out != "" {
			if _, _, err := s.port(t.Out, "out"); err != nil {
				return bad(k("out"), "%v", err)
			}
			if outs[t.Out] || linked[t.Out] {
				return bad(k("out"), "%s already feeds another tap or a link", t.Out)
			}
			outs[t.Out] = true
		}
		switch {
		case !t.Create && (t.Persist || t.Owner != nil || t.Group != nil):
			return bad(k("persist"), "persist, owner and group apply to a TAP the bridge creates: set create = true")
		case t.Owner != nil && *t.Owner < 0, t.Group != nil && *t.Group < 0:
			return bad(k("owner"), "owner and group are numeric ids, not negative")
		case t.MTU != 0 && (t.MTU < 68 || t.MTU > 65535):
			return bad(k("mtu"), "must be 68 to 65535, is %d", t.MTU)
		case t.Queue < 1 || t.Queue > maxTapQueue:
			return bad(k("queue"), "must be 1 to %d frames, is %d", maxTapQueue, t.Queue)
		}
	}
	if s.Bridge.Window > 1<<20 {
		return bad(toml.Key{"bridge", "window"}, "must be at most %d cycles", 1<<20)
	}
	if s.Bridge.MaxWindow > 1<<20 {
		return bad(toml.Key{"bridge", "max_window"}, "must be at most %d cycles", 1<<20)
	}
	return nil
}

// validDevice applies the kernel's rules for interface names.
func validDevice(name string) bool {
	return name != "" && len(name) <= 15 && name != "." && name != ".." &&
		!strings.ContainsAny(name, "/: \t\n\r\v\f\x00")
}
