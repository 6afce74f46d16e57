// SPDX-License-Identifier: MIT
// hooks.cpp: what happens when the RTL stops itself.
//
// Verilator's defaults print a line and either return ($finish: the caller
// must poll gotFinish), exit(0) on a second $finish, or abort() ($stop,
// $error, failed assertions, fatal errors). A model that exits 0 or dies
// by SIGABRT in the middle of a window tells the harness nothing useful,
// so the build defines VL_USER_FINISH, VL_USER_STOP and VL_USER_FATAL and
// these versions throw RtlStop instead: Sim adds the cycle, the session
// sends ERROR kErrModel with the text, closes the trace, calls final() and
// exits non-zero. The RTL's own message ($error text) has already gone to
// stdout through VL_PRINTF.
#include "sim.h"
#include "verilated.h"

#if !defined(VL_USER_FINISH) || !defined(VL_USER_STOP) || !defined(VL_USER_FATAL)
#error "build with -DVL_USER_FINISH -DVL_USER_STOP -DVL_USER_FATAL (sim/build.mk does)"
#endif

namespace {

std::string where(const char* filename, int linenum) {
    if (filename == nullptr || filename[0] == '\0') return "";
    return std::string(" at ") + filename + ":" + std::to_string(linenum);
}

}  // namespace

void vl_finish(const char* filename, int linenum, const char* /*hier*/) {
    Verilated::threadContextp()->gotFinish(true);
    throw cosim::RtlStop("the RTL called $finish" + where(filename, linenum));
}

void vl_stop(const char* filename, int linenum, const char* /*hier*/) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw cosim::RtlStop("the RTL stopped ($stop, $error or a failed assertion)" + where(filename, linenum));
}

void vl_fatal(const char* filename, int linenum, const char* /*hier*/, const char* msg) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw cosim::RtlStop(std::string("Verilator fatal error: ") + (msg ? msg : "") + where(filename, linenum));
}
