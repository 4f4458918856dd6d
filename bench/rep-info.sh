#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Condense one study run directory (bench/run-guest.sh output) into
# key=value lines for slb-summary and slb-stats: the guest outcome, the
# load's fate, outcome and progress, the kernel's split-lock counters,
# cyclictest's periods and interval.
#   rep-info.sh RUNDIR DURATION_S INTERVAL_US
set -uo pipefail
d=${1:?usage: rep-info.sh RUNDIR DURATION_S INTERVAL_US}
dur=${2:?usage: rep-info.sh RUNDIR DURATION_S INTERVAL_US}
int=${3:?usage: rep-info.sh RUNDIR DURATION_S INTERVAL_US}
f=$d/files
val() { [ -s "$1" ] && jq -r "$2 // \"\"" "$1" 2>/dev/null || true; }
echo "outcome=$(val "$d/outcome.json" .outcome | grep . || echo missing)"
fate=$(head -n 1 "$f/load.fate" 2>/dev/null)
echo "load_fate=${fate:-unknown}"
ops=$(val "$f/load.report.json" .ops)
echo "load_ops=${ops:--1}"
after=$(val "$f/load.report.json" .reported_after_ms)
echo "load_end_ms=${after:--1}"
counter() { local v; v=$(sed -n "s/^$1=//p" "$f/sld_counters.txt" 2>/dev/null); echo "${v:--1}"; }
traps=$(counter traps) sigbus=$(counter sigbus)
echo "sld_traps=$traps"
echo "sld_sigbus=$sigbus"
echo "sld_resumed=$(counter resumed)"
# Bus-lock #DB traps (ratelimit, or warn/fatal on a #DB-only CPU); -1 from
# kernels and stored runs without that counter.
buslock=$(counter buslock)
echo "sld_buslock=$buslock"
# Traps per CPU ("0:12,1:3"): warn mode pauses and re-arms detection per
# CPU, so a CPU whose count stops while its offender runs lost detection.
cpus=$(sed -n 's/^cpu\([0-9]*\)=\([0-9]*\)$/\1:\2/p' "$f/sld_counters.txt" 2>/dev/null | paste -sd, -)
echo "sld_cpu_traps=${cpus:-none}"
# What happened to the load, from how it ended and the kernel's counters,
# not from its exit status alone: none, never-trapped, killed (SIGBUS),
# survived-sigbus (it handled the SIGBUS and went on: slb-load
# --catch-sigbus exits 3), throttled (warn mode: it trapped and lived;
# or ratelimit: its bus locks trapped with #DB, counted in buslock, or
# for runs from kernels without that counter, shown by the kernel log),
# failed; "(unconfirmed)" when the kernel's counters disagree.
case $fate in
none) lo=none ;;
sigbus) lo=killed; [ "$sigbus" -ge 1 ] 2>/dev/null || lo="killed (unconfirmed)" ;;
"exit 3") lo=survived-sigbus; [ "$traps" -ge 1 ] 2>/dev/null || lo="survived-sigbus (unconfirmed)" ;;
completed)
	if [ "$traps" -gt 0 ] 2>/dev/null || [ "$buslock" -gt 0 ] 2>/dev/null ||
		grep -q '#DB: .* took a bus_lock trap' "$f/dmesg.txt" 2>/dev/null; then
		lo=throttled
	else
		lo=never-trapped
	fi ;;
*) lo=failed ;;
esac
echo "load_outcome=$lo"
# cyclictest's completed periods against those asked for (duration /
# interval): fewer means the isolated vCPU was starved.
cycles=$(val "$f/cyclictest.json" '.thread["0"].cycles')
echo "ct_cycles=${cycles:--1}"
echo "ct_expected=$((dur * 1000000 / int))"
echo "ct_interval_us=$int"
echo "hist=$([ -s "$f/hist.txt" ] && echo "$f/hist.txt" || echo none)"
