package pcapio_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocesim/cosim/harness/pcapio"
)

// Write the frames seen on one simulated link with their cycles, then read
// them back as the check command does.
func Example() {
	dir, err := os.MkdirTemp("", "pcapio-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "port0.pcapng")

	w, err := pcapio.CreateLinkFile(path, "port0", pcapio.LinkWriterOptions{})
	if err != nil {
		panic(err)
	}
	frame := make([]byte, 60) // an (all-zero) minimum-size Ethernet frame
	for _, cycle := range []uint64{100, 250} {
		if err := w.WriteFrame(cycle, frame); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	r, err := pcapio.Open(path)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	fmt.Println("format:", r.Format())
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var fe *pcapio.FormatError
		if errors.As(err, &fe) {
			fmt.Println("unreadable:", fe) // cosim check exits with status 2
			return
		}
		if err != nil {
			panic(err)
		}
		fmt.Printf("packet %d on %s: %d bytes, cycle %d, time %s\n",
			p.Index, p.InterfaceName, len(p.Data), p.Cycle, p.Timestamp.Format("15:04:05.000000000"))
	}
	// Output:
	// format: pcapng
	// packet 1 on port0: 60 bytes, cycle 100, time 00:00:00.000000640
	// packet 2 on port0: 60 bytes, cycle 250, time 00:00:00.000001600
}
