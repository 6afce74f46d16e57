package cosim_test

import (
	"bytes"
	"fmt"

	"github.com/rocesim/cosim/cosim"
)

// A window's messages are encoded into one batch and sent with one Write;
// the other side decodes them one by one.
func ExampleEncoder() {
	var conn bytes.Buffer // stands for the socket
	enc := cosim.NewEncoder(&conn)
	enc.Frame(cosim.Frame{Port: 1, Seq: 0, Cycle: 100, Data: []byte{0xde, 0xad, 0xbe, 0xef}})
	enc.CSRWrite(100, cosim.CSR{Addr: 0x10, Data: 1})
	enc.Run(164)
	fmt.Println("batch bytes:", enc.Buffered())
	if err := enc.Flush(); err != nil {
		panic(err)
	}

	dec := cosim.NewDecoder(&conn)
	for {
		var m cosim.Msg
		if err := dec.Read(&m); err != nil {
			break // io.EOF here; a *cosim.ProtocolError for bad bytes
		}
		switch m.Type {
		case cosim.MsgFrame:
			// m.Frame.Data is valid until the next Read.
			fmt.Printf("%s port %d seq %d cycle %d data % x\n", m.Type, m.Frame.Port, m.Frame.Seq, m.Frame.Cycle, m.Frame.Data)
		case cosim.MsgCSRWrite:
			fmt.Printf("%s %#x = %d\n", m.Type, m.CSR.Addr, m.CSR.Data)
		case cosim.MsgRun:
			fmt.Printf("%s until cycle %d\n", m.Type, m.Cycle)
		}
	}
	// Output:
	// batch bytes: 76
	// FRAME port 1 seq 0 cycle 100 data de ad be ef
	// CSR_WRITE 0x10 = 1
	// RUN until cycle 164
}
