// Package ethswitch is the golden model of eth_switch, the store-and-forward,
// output-queued L2 switch with priorities, ECN marking and IEEE 802.1Qbb PFC
// of rtl/switch. It follows the contract in rtl/switch/README.md exactly:
// which frames leave, on which port, with which bytes, and the cycle of
// every beat handshake, so that the RTL can be checked against it byte for
// byte and cycle for cycle. It uses only the standard library; the tests
// also use golden/pfc and golden/wirecheck as independent decoders.
//
// # Inputs, outputs and time
//
// Cycles are numbered as in sim/README.md (cycle 0 is the first after
// reset); "at cycle t" means in cycle t, effective for what t+1 sees. The
// model is a pure function of its stamped inputs:
//
//   - Input(port, frame, bad, last): a frame whose last beat was accepted
//     at last (the ACCEPT stamp). It is decided at last+1.
//   - CSRWrite(addr, data, cycle): a write on the CSR bus at cycle, in
//     force from cycle+1.
//   - Config.Ready(port, cycle): the sink's tready, a pure function.
//
// Run(until) simulates the cycles before until; Outputs returns the frames
// whose last beat was taken, each with the cycles its scheduler picked it,
// its first beat was taken and its last beat was taken (Out). CSRRead,
// Counter, Counters, CounterMap and Idle read the state as it is in cycle
// Now(). Config.OnDecide reports every decision (Decision) for diagnostics.
// Run skips the cycles in which nothing can change (no decision, no CSR
// write taking effect, no PFC refresh, no last beat, and no free egress
// with anything to pick); with a non-nil Ready a port that is sending is
// followed beat by beat.
//
// # Rules
//
// Each rule of rtl/switch/README.md with the test that pins it: a case
// name is TestRules/<case> (rules_test.go: exact outputs, cycles and
// counters, also run through the reference); other tests are named in
// full. Constants are in timing.go (TestTiming).
//
// A frame's life:
//   - Nothing before the last beat: a frame ending at L is decided at
//     D = L+1 (latency_idle, TestTiming); frames of one cycle are decided in
//     ascending port order, each seeing the effects of the ports before it.
//   - Validity, first match: length < 60 drop_runt, length > MTU
//     drop_oversize (MTU above MTU_MAX acts as MTU_MAX), tuser drop_bad
//     (validity_order, mtu_above_max). Every frame counts rx_frames and
//     rx_bytes.
//   - MAC Control (EtherType 0x8808) is consumed: PFC (01:80:C2:00:00:01,
//     opcode 0x0101) counts rx_pfc and, with CTRL.pfc_rx, sets the pause
//     timer of (egress = this port, p) for every enabled p; other opcodes
//     count rx_mac_control (mac_control_other, pfc_rx_disabled).
//   - Priority: VLAN tag → PCP; untagged IPv4 with version 4 and IHL >= 5 →
//     DSCP_MAP[DSCP]; otherwise DEFAULT_PRIO (priority).
//   - Learning: a non-group source is written to entry MACIndex with this
//     port and stamp D (learn_then_unicast, flood_group_and_group_source,
//     TestMACIndex); direct mapped, newest wins (collision_newest_wins).
//     Lookups of cycle D see the table before the learns of D
//     (same_cycle_lookup_before_learn); learns of one cycle apply in port
//     order, the last wins (same_cycle_learn_precedence). An entry is live
//     at t when valid and AGE_CYCLES = 0 or t - stamp < AGE_CYCLES
//     (aging_boundary: live at stamp+99, dead at stamp+100).
//   - Forwarding: group destinations and misses flood to every port but
//     the ingress; a live entry sends to its port, or drops drop_filtered
//     when that is the ingress (filter).
//   - Slot: an empty pool drops drop_no_slot on the ingress
//     (no_slot_same_cycle); a slot held by copies is free from z+1
//     (no_slot_until_z_plus_1); a frame that queued no copy gives its slot
//     back from D+1, not to later ports of D (slot_back_after_all_tail).
//   - Admission per target egress, ascending: occ(e) + len > BUF_BYTES drops
//     drop_tail[p] on e (tail_same_cycle_order); occ and qocc count a copy
//     from D (for later ports of D) until its last beat z, not at z+1
//     (occupancy_release_z_plus_1, TestTiming).
//   - Departure: visible from D+1, first beat valid the cycle after the
//     pick, each further beat the cycle after the previous handshake;
//     Latency = 3 at idle (latency_idle, latency_idle_512); the next pick is
//     at the last handshake, so frames go back to back (back_to_back); beats
//     hold while tready is low, the last one included (backpressure).
//
// Egress scheduling, at every cycle the transmitter is free:
//   - A waiting PFC frame first, oldest first, never paused
//     (pfc_before_data).
//   - Strict priority: the highest non-empty queue not paused
//     (strict_priority).
//   - DRR, the README's steps literally: quantum added once per visit
//     (fresh), a quantum smaller than the frame needs several visits, even
//     over several cycles (drr_sequence, drr_next_queue_fresh); an empty
//     queue's deficit goes to 0, a paused one keeps it (drr_sequence,
//     drr_pause_keeps_deficit); a pick out of steps picks nothing and keeps
//     the state it reached (drr_sequence: no pick at 107 and 159).
//
// ECN: with CTRL.ecn, a copy of an IPv4 frame (untagged or after one VLAN
// tag) with ECN 01 or 10 is marked CE when qocc(e,p) before the add exceeds
// ECN_K[p]; the header checksum is updated by RFC 1624 equation 3 and
// ecn_marked[p] counts on e (ecn_threshold, ecn_disabled, TestMarkCE,
// which checks against a full recomputation by golden/wirecheck, and
// golden/checksum's TestUpdate). RED form (CTRL.red): no mark up to ECN_K, always above
// ECN_KMAX, in between a candidate that steps the 16-bit LFSR once and is
// marked with probability (q-K)/(KMAX-K)*PMAX/256 (TestREDCandidates,
// TestREDOffAndSeed, TestLFSRMaximal, TestREDProbability).
//
// PFC:
//   - Receive: a PFC frame decided at D pauses queue p of egress (its
//     ingress port) at the picks of D+1 .. D+N, N = time[p]*512/DATA_WIDTH;
//     N = 0 resumes at D+1; a frame already leaving finishes
//     (pfc_rx_pause_64, pfc_rx_pause_512, pfc_rx_zero_resumes,
//     drr_pause_keeps_deficit, TestPauseCycles).
//   - Send: at the end of every cycle, after all its updates: OFF and
//     ic(i,p) > PFC_XOFF → XOFF, refresh at t + PFC_REFRESH; ON and
//     ic(i,p) <= PFC_XON → XON; ON at the refresh cycle → XOFF again
//     (pfc_tx_xoff_refresh_xon, pfc_tx_at_threshold). The 60-byte frame
//     (PFCFrame) waits on egress i from t+1 and counts tx_pfc and tx_frames
//     (TestPFCFrame decodes it with golden/pfc).
//
// CSRs and counters: the map, reset values and field widths
// (TestCSRReset, TestCSRWrite, TestCounterNames); a write at t is in force
// at t+1 (csr_write_timing, TestCSRTiming); counters count at D (rx, drops,
// marks) or at the last beat (tx) and a write wins over a count of the same
// cycle (counter_write_wins); idle (TestIdle).
//
// # Choices where the README is silent
//
// Each is the simplest reading; the RTL must make the same choice.
//
//   - QUEUES must be 8 (queue index = priority); DATA_WIDTH must be a power
//     of two from 8 to 512, so time*512/DATA_WIDTH is exact.
//   - A lookup hits only an entry holding that very MAC (the entry stores
//     the address). Stamps are compared as exact 64-bit cycle numbers.
//   - MAC Control is recognised by the EtherType at offset 12 only (a
//     tagged 0x8808 is an ordinary frame). MAC Control frames stop at step
//     2: not learned. PAUSE (0x0001) is "another opcode": rx_mac_control,
//     no pause. PFC needs both the destination and the opcode, and uses
//     the low byte of the enable vector (the reserved high byte is
//     ignored). A new PFC frame replaces a running timer, shorter or not.
//   - rx_bytes counts every frame that ends, as rx_frames does; tx_bytes
//     includes the PFC frames sent. drop_tail and ecn_marked count at D.
//   - ECN "IPv4 frame": the same IPv4 test as for priority (version 4,
//     IHL >= 5), at offset 14, or 18 after one 0x8100 tag.
//   - A counter written in the cycle it counts holds the written value (the
//     count of that cycle is lost).
//   - Registers keep only their field: CTRL bits 3:0, DEFAULT_PRIO 2:0,
//     PFC_QUANTA 15:0, SWITCH_MAC_HI 15:0, DSCP_MAP the eight 3-bit fields
//     (0x77777777); they read back masked. MTU and PFC_REFRESH read back as
//     written (MTU acts as min(MTU, MTU_MAX), PFC_REFRESH 0 acts as 1). ID
//     and SHAPE ignore writes; unmapped addresses (counters 12..15 and past
//     PORTS included) read 0 and ignore writes.
//   - A PFC frame's bytes (SWITCH_MAC, PFC_QUANTA) are fixed when it is
//     generated. The PFC frames waiting on a port are not bounded.
//   - PFC generation is not evaluated at all while CTRL.pfc_tx is 0: the
//     states keep their values, and a refresh whose cycle passes meanwhile
//     is never sent (the refresh rule is t equal to the refresh cycle).
//     The three rules are exclusive, XON before refresh. With PFC_XON >=
//     PFC_XOFF a state flips every cycle, one frame each time.
//   - The DRR state changes only at DRR picks: not while CTRL.sched is 0,
//     not when a PFC frame is picked, not while the transmitter is busy;
//     but a DRR pick runs at every free cycle, with nothing eligible too
//     (then it zeroes the deficits of empty queues). Deficits do not
//     saturate (64 bits here).
//   - Idle counts a PFC frame being sent as waiting, and every frame given
//     to Input and not yet decided as arriving.
//   - Two frames cannot end in the same cycle on one port (Input refuses).
//
// # Checks
//
// Besides TestRules: TestAgainstReference runs hundreds of random scenarios
// (2 to 8 ports, 8 to 512 bits, tiny pools and buffers, random CSR writes,
// MAC Control, bad frames, backpressure) through Model and a slow per-cycle
// reference written separately from the README (reference_test.go), window
// by window, comparing every output, counter, occupancy, ic and idle;
// TestConservation checks on the decisions alone that every frame is
// decided once and accounted for by its fate and the counters, that every
// queued copy leaves once, never on its ingress port, no earlier than
// Latency after its last beat, and in its queue's order, and that the
// switch ends idle. TestRules runs every case through the reference too.
// TestZeroAllocs shows the hot path allocates nothing (only ECN-marked
// copies and PFC frames are new slices); BenchmarkRun reports cycles and
// frames per second; FuzzFrame feeds any bytes.
package ethswitch
