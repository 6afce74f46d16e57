// Package testbench is the Go test API of the co-simulation: from a test of
// one's own (go test), start the Verilated models of a scenario or a single
// model, send frames into their ports at cycles of one's choosing, read and
// write their registers by name, run them, and check what comes out with
// deadlines in cycles, while the golden model still checks every frame the
// RTL emits underneath.
//
// # A bench
//
// A bench is started from a *testing.T (or anything with its methods: T):
//
//	b := testbench.Model(t, "switch4_64", testbench.Name("sw"))   // one model, its ports free
//	b := testbench.FromFile(t, "testdata/two_nics.toml")          // a scenario file
//	b := testbench.FromFile(t, "fabric")                          // a built-in scenario, by name
//	b := testbench.FromTOML(t, text)                              // a scenario written in the test
//	b := testbench.New(t, sc)                                     // a scenario built in code
//	b := testbench.Default(t)                                     // the built-in default scenario
//
// The models start at once and stop with the test (t.Cleanup); a model that
// is not built skips the test, or fails it under COSIM_REQUIRE_MODELS=1.
// The models are looked up as make build puts them,
// <dir>/<top>_<width>/V<module>, in ModelDir, else $COSIM_MODELS_DIR, else
// build/models at the module's root. A scenario's own sources, links and
// workloads run beside what the test does. Everything the bench writes (a
// pcapng per link and per input port, summary.json, the pcapng of each
// failed expectation) goes to the test's temporary directory, or to
// $COSIM_TB_OUT/<test> to keep it.
//
// # Ports and time
//
// Ports are named as scenarios name them, "sw.in0" and "sw.out2". Time is
// counted in clock cycles from 0, the first cycle after reset; Now is
// where the bench stands. The models run in windows (harness/DESIGN.md,
// "Time"): the bench runs them as far as a call needs and no further.
// Every frame carries its cycles: Sent.First and Sent.Last say when the
// DUT took a frame's first and last beats, Received.Cycle and LastCycle
// when an output's first and last beats left.
//
// # Driving
//
//	s := b.Send("sw.in0", frame)                 // from Now, as soon as the port is free
//	s := b.Send("sw.in0", frame, testbench.At(120), testbench.Bad())
//	b.RunUntil(s.Taken, 1000)                     // then s.First(), s.Last()
//	frame := b.Packet(eth, ip, udp, payload)      // gopacket layers, checksums and ICRC computed
//	b.WriteCSR("sw.CTRL", 2)                      // on the bus at Now, in force from Now+1
//	v := b.ReadCSR("sw.port1.tx_frames")          // registers and counters by name
//	b.Run(1000); b.RunTo(5000); b.RunUntilIdle(100_000)
//
// Register names are those of the model's top: its configuration
// registers, its counters and its read-only registers (rtl/<dev>/README.md;
// engine.Top). The golden model hears every write with its cycle.
//
// # Checking
//
// An expectation runs the models until what it wants came out or its
// deadline passed. A deadline is the cycle by which the frame's last beat
// must have left: Within(n) cycles from Now, By(cycle), or the bench's
// Deadline (10,000 cycles) after Now. LeavesAt(cycle) wants the first beat
// to leave at exactly that cycle.
//
//	got := b.Expect("sw.out1", testbench.Exact(frame), testbench.Within(500))
//	b.Expect("sw.out1", testbench.Ignoring(frame, testbench.IPv4TTL, testbench.IPv4Checksum))
//	b.Expect("sw.out1", testbench.NewMask(frame).IgnoreBytes(14, 2))
//	b.Expect("sw.out1", testbench.Where("a PFC frame", isPFC))
//	b.Expect("sw.out1", testbench.OneOf(testbench.Exact(a), testbench.Exact(b)))
//	b.ExpectNone("sw.out0", testbench.Any(), 2000)
//	got := b.ExpectAnyPort([]string{"sw.out1", "sw.out2"}, m)
//	all := b.ExpectEach([]string{"sw.out1", "sw.out2", "sw.out3"}, m)
//	n := b.Count("sw.out2", m, 10_000)
//
// Each output port's frames are claimed in the order they came: Expect wants
// the first frame no expectation has claimed yet to be the one, so a frame
// that comes first and is not wanted fails it at once, with the difference
// (PTF's verify_packet instead skips frames it does not want; Count and Out
// read a port in any order). The fields a mask may leave out are named by
// layer and field (IPv4TTL, IPv4Checksum, IPv4ECN, UDPChecksum, BTHPSN,
// ICRC, ...; Field for others): a checksum left out is not compared with
// the wanted frame's but recomputed, and must be right for the frame that
// came. A frame marked bad (tuser) fails an expectation that does not say
// MarkedBad.
//
// A failed expectation stops the test with a report in the scoreboard's
// form: the call, the port, the frame's number and cycle, the fields that
// differ, both frames in hex around the first difference, a pcapng of the
// port's last frames with the one that came and the one wanted, the seed
// and the command that reruns the test. Bad use (an unknown port, a frame
// sent on an output, a register that does not exist, a deadline in the
// past) stops it with an error that names the call.
//
// # The golden model underneath
//
// Every frame the RTL emits is still checked against the golden model, in
// order, byte for byte, and when the bench finishes (Finish, or the test's
// cleanup) every counter is read and compared with the golden model's;
// any difference fails the test with the scoreboard's report. Expectations
// come on top of that. NoGolden turns the golden check off for output
// ports the test checks its own way. After Finish, Counter gives a
// counter's final value by name, the DUT's, found equal to golden's, and
// the summary Finish returns has the rest (drops and faults of the links,
// the golden models' events, the workloads' failures):
//
//	s := b.Finish()
//	retrans := b.Counter("nic0.qp0.tx_retransmits")
//	lost := s.Drops["link_loss"]
//
// # Seeds and reruns
//
// The seed (backpressure draws, link faults, generated traffic) is the
// test's Seed, else $COSIM_TB_SEED, else the scenario's, else 1: the same
// seed gives the same cycles. A failing test logs the seed, where its
// outputs are and the command that reruns it (Bench.Rerun).
//
// # Outside go test
//
// Standalone runs a bench outside a test, for an Example whose output go
// test compares or for a program; the package's examples run that way on
// the FIFO, the 4-port switch and the NIC, which make test always builds.
//
// # From PTF
//
// PTF (p4lang/ptf, src/ptf/testutils.py and src/ptf/mask.py) tests a
// device's ports over sockets with timeouts in seconds; here the device is
// RTL and time is cycles.
//
//	PTF                                           testbench
//	send_packet(test, port, pkt)                  b.Send("m.inN", frame)
//	verify_packet(test, pkt, port, timeout)       b.Expect("m.outN", Exact(frame), Within(cycles))
//	verify_no_packet(test, pkt, port, timeout)    b.ExpectNone("m.outN", Exact(frame), cycles)
//	verify_no_other_packets(test)                 b.ExpectNone(port, Any(), 0) on each port
//	verify_packet_any_port(test, pkt, ports)      b.ExpectAnyPort(ports, Exact(frame)) (got.Port says which)
//	verify_any_packet_any_port(test, pkts, ports) b.ExpectAnyPort(ports, OneOf(Exact(a), Exact(b)))
//	verify_packets(test, pkt, ports)              b.ExpectEach(ports, Exact(frame))
//	count_matched_packets(test, pkt, port, t)     b.Count(port, Exact(frame), cycles)
//	(counters after the test)                     b.Finish(); b.Counter("m.NAME")
//	Mask(pkt)                                     NewMask(frame)
//	mask.set_do_not_care_packet(IP, "ttl")        NewMask(frame).Ignore(IPv4TTL), Ignoring(frame, IPv4TTL, IPv4Checksum)
//	mask.set_do_not_care(offset, bits)            NewMask(frame).IgnoreBits(offset, bits)
//	simple_udp_packet(...) (scapy)                b.Packet(eth, ip, udp, payload) (gopacket layers)
//	test.dataplane.poll(port)                     b.Out(port)
//
// # From cocotb and cocotbext-eth
//
//	cocotb, cocotbext-eth, cocotbext-axi          testbench
//	@cocotb.test() async def test_x(dut)          func TestX(t *testing.T) { b := testbench.Model(t, ...) }
//	await ClockCycles(dut.clk, n)                 b.Run(n)
//	await Timer / RisingEdge until a cycle        b.RunTo(cycle)
//	await a condition (with_timeout)              b.RunUntil(cond, within)
//	AxiStreamSource.send / GmiiSource.send        b.Send(port, frame)
//	AxiStreamSink.recv / GmiiSink.recv            b.Expect(port, match) or b.Out(port)
//	AxiStreamFrame tuser                          Bad() on a send, MarkedBad() on an expectation
//	AxiLiteMaster.write / read                    b.WriteCSR / b.ReadCSR, by register name
//	AxiRam.read / write (a DMA's host memory)     nic.ReadMemory / nic.WriteMemory; nic.CheckMemory against golden
//	results.xml (JUnit)                           go test's output (go test -json for tools)
//
// # A NIC's host
//
// A NIC model (top "nic") has a host behind it: SetUpNIC gives it its
// address, memory regions and queue pairs (nicdev.Setup, as ibv_modify_qp
// would) before anything runs, written into the DUT over the CSR bus and
// into its golden model alike; then the test is its host:
//
//	nic0 := b.SetUpNIC("nic0", setup)
//	nic0.PostSend(qpn, rc.WorkRequest{ID: 1, Op: rc.OpWrite, ...})   // a command record on nic0.in1
//	nic0.PostRecv(qpn, rc.RecvRequest{...})
//	c := nic0.ExpectCompletion(rc.Completion{QPN: qpn, ID: 1, Op: rc.OpWrite, Bytes: n}, testbench.Within(20_000))
//	got := nic0.ReadMemory(addr, n); nic0.WriteMemory(addr, data)     // the golden model's memory takes the write too
//	b.RunUntilIdle(100_000); nic0.CheckMemory(addr, n)                // the DUT's host memory is golden's
//	nic0.CheckQPStates()                                              // each QP ready or in error, as golden's
//
// A NIC alone on a bench (Model(t, "nic_64", Name("nic"))) has its
// network port free: the test plays the peer, sending RoCEv2 requests on
// nic.in0 and expecting the answers on nic.out0, while golden predicts
// each answer's bytes and cycle.
//
// # Your own RTL
//
// A user's own SystemVerilog top that follows the port convention
// (sim/README.md) becomes a model with `cosim model build --top NAME --src
// DIR --out build/models` (harness/modelbuild); its golden model registers
// with engine.Register from the user's own package, as
// harness/device/switchdev does, and a bench then starts it by name like
// any other: testbench.Model(t, "NAME_64"), or a scenario's [[model]] with
// top = "NAME". ModelDir takes several directories, so that the user's
// models and this project's (the switch) run in one scenario.
// harness/example is such a user project, with its own go.mod.
package testbench
