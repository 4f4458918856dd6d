#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Condense one study run directory (bench/run-guest.sh output) into
# key=value lines for slb-summary: the guest outcome, the load's fate and
# progress, the kernel's split-lock counters.
set -uo pipefail
d=${1:?usage: rep-info.sh RUNDIR}
f=$d/files
val() { [ -s "$1" ] && jq -r "$2 // \"\"" "$1" 2>/dev/null || true; }
echo "outcome=$(val "$d/outcome.json" .outcome | grep . || echo missing)"
echo "load_fate=$(head -n 1 "$f/load.fate" 2>/dev/null | grep . || echo unknown)"
ops=$(val "$f/load.report.json" .ops)
echo "load_ops=${ops:--1}"
after=$(val "$f/load.report.json" .reported_after_ms)
echo "load_end_ms=${after:--1}"
for k in traps warned killed; do
	v=$(sed -n "s/^$k=//p" "$f/sld_counters.txt" 2>/dev/null)
	echo "sld_$k=${v:--1}"
done
# cyclictest's completed periods against those asked for (the job's
# duration / interval): fewer means the isolated vCPU was starved.
cycles=$(val "$f/cyclictest.json" '.thread["0"].cycles')
echo "ct_cycles=${cycles:--1}"
dur=$(sed -n 's/.*SLB_DURATION=\([0-9]*\).*/\1/p' "$d.job" 2>/dev/null)
int=$(sed -n 's/.*SLB_INTERVAL=\([0-9]*\).*/\1/p' "$d.job" 2>/dev/null)
if [ -n "$dur" ] && [ -n "$int" ]; then echo "ct_expected=$((dur * 1000000 / int))"; else echo "ct_expected=-1"; fi
echo "hist=$([ -s "$f/hist.txt" ] && echo "$f/hist.txt" || echo none)"
