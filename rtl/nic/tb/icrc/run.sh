#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh: generate stimulus with the Go golden ICRC (rtl/nic/tb/icrc/gen), build
# icrc_insert and icrc_check with Verilator at each data width, and run
# tb_icrc.cpp on them. Exits non-zero on any mismatch or error.
#
# usage: rtl/nic/tb/icrc/run.sh [-n FRAMES] [-w "64 512"] [-s SEED] [-d "icrc_insert icrc_check"]
# Builds go to $BUILD_DIR, by default build/rtl-nic-tb at the repository
# root (ignored by git), never into the source tree.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
frames=10000
widths="64 512"
seed=1
duts="icrc_insert icrc_check"
build="${BUILD_DIR:-$root/build/rtl-nic-tb}"

while getopts "n:w:s:d:h" opt; do
    case "$opt" in
    n) frames="$OPTARG" ;;
    w) widths="$OPTARG" ;;
    s) seed="$OPTARG" ;;
    d) duts="$OPTARG" ;;
    *) sed -n '3,9p' "$0"; exit 2 ;;
    esac
done

mkdir -p "$build"
(cd "$root" && go run ./rtl/nic/tb/icrc/gen -n "$frames" -seed "$seed" -out "$build")

status=0
for w in $widths; do
    for dut in $duts; do
        case "$dut" in
        icrc_insert) stim=tx.txt; defs=() ;;
        icrc_check) stim=rx.txt; defs=(-CFLAGS -DDUT_CHECK) ;;
        *) echo "run.sh: unknown module $dut"; exit 2 ;;
        esac
        obj="$build/${dut}_$w"
        echo "run.sh: building $dut DATA_WIDTH=$w in $obj"
        verilator --cc --exe --build -Wall --assert -x-assign fast -MAKEFLAGS OPT_FAST=-O2 \
            --prefix Vdut --top-module "$dut" -GDATA_WIDTH="$w" \
            -CFLAGS -DDATA_WIDTH="$w" "${defs[@]}" \
            -I"$root/rtl/common" -Mdir "$obj" -o tb \
            "$root/rtl/nic/$dut.sv" "$root/rtl/common/crc32_roce.sv" "$root/rtl/common/axis_skid.sv" \
            "$here/tb_icrc.cpp" \
            >"$obj.log" 2>&1 || { cat "$obj.log"; exit 1; }
        "$obj/tb" "$build/$stim" --seed "$seed" || status=1
    done
done
exit $status
