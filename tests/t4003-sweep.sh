#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bus-lock cost sweep end to end on a tiny grid (2 costs, 1 rep of 3 s):
# the aligned control runs once, split-off once per cost, and the sweep's
# table, JSON and plots come out; a larger cost hurts more (1000 against
# 3000 ns: with a debt cap of one quantum, patch/qemu 0004's first
# version, 3000 came out below 1000).
. "$(dirname "$0")/lib.sh"
t_require_guest "sweep tests"
res=$T_TMP/results
"$T_ROOT/bench/sweep.sh" --costs "1000 3000" --duration 3 --reps 1 --results "$res" --id s >"$T_TMP/sweep.out" 2>&1
rc=$?
sw=$res/s
t_ok "the sweep completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/sweep.out'; exit 1; }"
t_ok "progress names each step" grep -q '\[3/3\] split-off at a bus-lock cost of 3000 ns' "$T_TMP/sweep.out"
t_ok "one aligned control and one study per cost" sh -c "[ -s '$sw/aligned/summary.json' ] && [ -s '$sw/ns1000/summary.json' ] && [ -s '$sw/ns3000/summary.json' ]"
t_ok "sweep.dat has a header and one row per cost" t_line_count 3 "$sw/sweep.dat"
t_ok "sweep.json parses, in us, with both costs" jq -e '.unit == "us" and ([.rows[].bus_lock_ns] == [1000, 3000])' "$sw/sweep.json"
t_ok "3000 ns per bus lock hurts more than 1000 ns (p99.9)" jq -e '.rows[1].split_p999_us > .rows[0].split_p999_us and .monotonic_p999' "$sw/sweep.json"
t_ok "the aligned control is the same on every row" jq -e '[.rows[].aligned_p999_us] | unique | length == 1' "$sw/sweep.json"
t_ok "the plot is a PNG" t_is_png "$sw/sweep.png" 5000
t_ok "... and an SVG" t_is_svg "$sw/sweep.svg"
t_ok "no incomplete directory is left" sh -c "! ls -d '$res'/.incomplete-* 2>/dev/null"
