package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/rocesim/cosim/harness/pcapio"
)

// packetReport is the --json form of one packet's verdict.
type packetReport struct {
	File     string              `json:"file"`
	Index    int                 `json:"index"`
	Length   int                 `json:"length"`
	Kind     string              `json:"kind"`
	Summary  string              `json:"summary"`
	OK       bool                `json:"ok"`
	Problems []wirecheck.Problem `json:"problems"`
	// Unchecked: checks the packet did not get, each with its reason.
	Unchecked []wirecheck.Problem `json:"unchecked,omitempty"`
	OpCode    string              `json:"opcode,omitempty"`
	DestQP    *uint32             `json:"dest_qp,omitempty"`
	PSN       *uint32             `json:"psn,omitempty"`
	Payload   *int                `json:"payload_len,omitempty"`
}

// tally counts verdicts over all files.
type tally struct {
	packets, roce, macControl, other, invalid, unchecked int
}

func (t tally) String() string {
	s := fmt.Sprintf("%d packets: %d RoCEv2, %d MAC control, %d other; %d invalid",
		t.packets, t.roce, t.macControl, t.other, t.invalid)
	if t.unchecked > 0 {
		s += fmt.Sprintf("; %d not checked in full", t.unchecked)
	}
	return s
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per packet")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cosim check [--json] FILE.pcap[ng]...")
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fail(exitBadInput, "check: %v", err)
	}
	if len(files) == 0 {
		fs.Usage()
		return fail(exitBadInput, "check: no capture file given")
	}
	c := wirecheck.NewChecker()
	var t tally
	var unreadable []error
	enc := json.NewEncoder(stdout)
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return fail(exitBadInput, "check: %v", err)
		}
		if len(files) > 1 && !*asJSON {
			fmt.Fprintf(stdout, "== %s\n", path)
		}
		err := checkFile(path, c, &t, func(rep packetReport) error {
			if *asJSON {
				return enc.Encode(rep)
			}
			return printPacket(stdout, rep)
		})
		if err != nil {
			// Keep going: the other files still get checked.
			fmt.Fprintln(stderr, "cosim check:", err)
			unreadable = append(unreadable, err)
		}
	}
	if *asJSON {
		fmt.Fprintln(stderr, t)
	} else {
		fmt.Fprintln(stdout, t)
	}
	switch {
	case len(unreadable) > 0:
		return fail(exitBadInput, "check: %d of %d files could not be read completely", len(unreadable), len(files))
	case t.invalid > 0:
		return fail(exitFailed, "check: %d invalid packets", t.invalid)
	}
	return nil
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments ("cosim check a.pcap --json"); after "--" every
// argument is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos, rest []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// checkFile checks every packet of one capture, reporting each through emit.
func checkFile(path string, c *wirecheck.Checker, t *tally, emit func(packetReport) error) error {
	r, err := pcapio.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rep := verdict(c, path, p)
		t.packets++
		switch rep.Kind {
		case wirecheck.KindRoCE.String():
			t.roce++
		case wirecheck.KindMACControl.String():
			t.macControl++
		default:
			t.other++
		}
		if !rep.OK {
			t.invalid++
		}
		if len(rep.Unchecked) > 0 {
			t.unchecked++
		}
		if err := emit(rep); err != nil {
			return err
		}
	}
}

func verdict(c *wirecheck.Checker, path string, p pcapio.Packet) packetReport {
	res := c.Check(p.Data)
	rep := packetReport{
		File:     path,
		Index:    p.Index,
		Length:   p.OriginalLength,
		Kind:     res.Kind.String(),
		Summary:  res.Summary(),
		Problems: append([]wirecheck.Problem{}, res.Problems...),
	}
	if len(res.Unchecked) > 0 {
		rep.Unchecked = append([]wirecheck.Problem{}, res.Unchecked...)
	}
	if p.Truncated() && res.Kind != wirecheck.KindOther {
		rep.Problems = append(rep.Problems, wirecheck.Problem{
			Code:    wirecheck.CodeTruncated,
			Message: fmt.Sprintf("captured %d of %d bytes (snap length): the packet cannot be checked whole", p.CaptureLength, p.OriginalLength),
		})
	}
	rep.OK = len(rep.Problems) == 0
	if b := res.BTH(); b != nil {
		qp, psn, n := uint32(b.DestQP), uint32(b.PSN), len(b.Payload)
		rep.OpCode, rep.DestQP, rep.PSN, rep.Payload = b.OpCode.String(), &qp, &psn, &n
	}
	return rep
}

func printPacket(w io.Writer, rep packetReport) error {
	verdict := "ok"
	if !rep.OK {
		verdict = "INVALID"
		for i, p := range rep.Problems {
			if i > 0 {
				verdict += ";"
			}
			verdict += " " + p.String()
		}
	}
	for _, u := range rep.Unchecked {
		verdict += "; not checked: " + u.String()
	}
	_, err := fmt.Fprintf(w, "%6d  %s  %s\n", rep.Index, rep.Summary, verdict)
	return err
}
