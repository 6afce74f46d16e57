// Package cosim is the Go end of the co-simulation socket protocol: it
// starts a Verilator model process (or connects to one on another host),
// does the handshake, advances simulated time window by window while
// moving frames, CSR accesses and host memory, and detects the model's
// death or silence within a bounded time.
//
// # Wire format
//
// The layout is defined once per side, here in proto.go and for the models
// in sim/proto.h; the two must agree byte for byte. Every message is a
// 16-byte little-endian header (type, flags, body length, cycle stamp)
// followed by a body: a fixed part per type and, for some types, variable
// bytes (frame data, a memory block, text). A body is at most MaxBody
// bytes.
//
// # Conversation
//
//	model   -> harness  HELLO       version, name, data width, ports, parameters
//	harness -> model    HELLO_ACK   trace flag and path, seed, backpressure
//	per window, one write each way:
//	harness -> model    FRAME* CSR_WRITE* CSR_READ* MEM_WRITE* MEM_READ* RUN(target)
//	model   -> harness  ACCEPT* FRAME* CSR_DATA* MEM_DATA* DONE(target)
//	at the end:
//	harness -> model    GOODBYE     the model answers GOODBYE and exits 0
//
// Either side may send ERROR (code, text) and close. Time is counted in
// clock cycles. The first window starts at HELLO's cycle stamp; each
// window runs [current cycle, target). An input FRAME carries its arrival
// cycle and a per-port sequence number; ACCEPT reports the first- and
// last-beat cycles at which the DUT took it; an output FRAME carries the
// cycle its first beat left. The reply's messages may come in any order
// before DONE, but frames and accepts are in order per port. CSR and
// memory messages are stamped with the window's first cycle.
//
// A started model runs in its own process group, so a Ctrl-C on the
// terminal reaches only the harness, which then closes its models; a
// model must therefore exit by itself when its connection ends (EOF).
//
// # Using it
//
// Encoder and Decoder are the codec, usable on any stream. Model is one
// model: Start (a local process on a Unix socket in a private directory)
// or Dial (TCP or an existing socket), then Handshake, Step for each
// window, Close. Step checks the reply against the window and the
// conversation so far and fails with a *ProtocolError on any
// inconsistency: an ACCEPT for a frame never sent, a FRAME out of order or
// outside the window, DONE for the wrong cycle or with counts that do not
// add up, a missing CSR or memory answer.
//
// Pipelined windows: Send and Recv are Step's two halves. Send hands the
// window to a writer goroutine and returns; Recv reads the reply to the
// oldest window sent. A caller whose next window does not depend on the
// last reply (open-loop stimulus) sends it before it reads that reply, and
// does its own work on the reply while the model simulates the next
// window. Windows and replies may be far larger than the socket buffers
// (or the shared memory rings of Config.SharedMemory):
// the writes never wait for the reads. Step refuses to run while windows
// are in flight; Close lets them through and reads their replies before
// GOODBYE.
//
// # Buffer ownership
//
//   - Encoder: every method copies what it is given (frame data, memory
//     blocks, text) into the Encoder's own buffer before returning; the
//     caller may reuse its slices at once. Flush sends the batch with one
//     Write and reuses the buffer for the next batch.
//   - Decoder: Frame.Data and Mem.Data in a decoded Msg alias the Decoder's
//     buffer and are valid only until the next Read. Strings (Hello.Text,
//     HelloAck.TracePath, ErrorMsg.Text) are copies.
//   - Model.Step: the Window's slices are read during the call and not kept;
//     Step writes each input frame's Seq into Window.Frames. The caller
//     owns the returned Reply and all its data. Model.StepInto is Step
//     into a Reply the caller reuses: its slices are overwritten, but frame
//     and memory data point into the 1 MiB chunks the Model reads replies
//     into, which are never reused, so data kept from an earlier reply
//     stays valid.
//
// # Errors and time bounds
//
// Every Model method fails with a *ModelError that names the model and
// the operation (and what it was waiting for), and for a started model
// carries its process status and last output lines. It wraps the cause:
// *ProtocolError (bytes that break the protocol: unknown type, bad length,
// version mismatch, EOF inside a message), *RemoteError (an ERROR from the
// model), *ExitError (the process ended), ErrTimeout, ErrConnClosed,
// ErrClosed, or a context error.
//
// Nothing blocks without a bound. Start waits at most Timeouts.Start for
// the socket; Handshake as long for HELLO; Step at most Timeouts.Step for
// the whole window (default 10 s), or less if its ctx says so; Recv as
// long from its call for the reply (a window the model does not take in
// is caught there, and its writer is stopped when Recv fails); Close at
// most Timeouts.Close for GOODBYE and exit before it kills the process.
// A goroutine reaps each model process and interrupts the operation in
// progress, so a model that dies (even by SIGKILL) is reported at once,
// not when the timeout expires.
package cosim
