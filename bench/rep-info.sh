#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Condense one study run directory (bench/target/run-guest.sh output) into
# key=value lines for slb-summary and slb-stats: the guest outcome, the
# load's fate, outcome and progress, the kernel's split-lock counters,
# cyclictest's periods and interval.
#   rep-info.sh RUNDIR DURATION_S INTERVAL_US
set -uo pipefail
d=${1:?usage: rep-info.sh RUNDIR DURATION_S INTERVAL_US}
dur=${2:?usage: rep-info.sh RUNDIR DURATION_S INTERVAL_US}
int=${3:?usage: rep-info.sh RUNDIR DURATION_S INTERVAL_US}
f=$d/files
# Each JSON file is read with one jq (json_fields).
. "$(dirname "$0")/../scripts/lib.sh"
{ IFS= read -r outcome; IFS= read -r reason; IFS= read -r seed; } < <(json_fields "$d/outcome.json" .outcome .reason .seed)
echo "outcome=${outcome:-missing}"
# Why a rep did not end ok (outcome.json reason: run-guest's, the native
# runner's or the study's), one line.
echo "reason=$(printf '%s' "$reason" | cut -c1-240 | sed 's/ *$//')"
# The seed (virtual clock only): rep k of every scenario runs with seed k,
# which makes reps of two scenarios pairs (slb-stats pairs them by it).
echo "seed=${seed:--1}"
fate=$(head -n 1 "$f/load.fate" 2>/dev/null)
echo "load_fate=${fate:-unknown}"
{ IFS= read -r ops; IFS= read -r after; } < <(json_fields "$f/load.report.json" .ops .reported_after_ms)
echo "load_ops=${ops:--1}"
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
# What happened to the load, from what the kernel did (its counters) and
# whether the process lived, whatever the program: none, never-trapped,
# killed (SIGBUS), survived-sigbus (the kernel sent SIGBUS, sigbus >= 1,
# and the process was not killed by it: it handled it and ended by itself,
# whatever its exit status), throttled (warn mode: it trapped and lived;
# or ratelimit: its bus locks trapped with #DB, counted in buslock, or for
# runs from kernels without that counter, shown by the kernel log; or
# natively, where a kernel without the project's counters logs its #AC
# warnings), failed;
# "(unconfirmed)" when the kernel's counters disagree (slb-load
# --catch-sigbus exits 3 after a SIGBUS the kernel did not count).
lived=0 # ended by itself: completed, or an exit status under 128 (not a signal's)
case $fate in completed) lived=1 ;; "exit "*) [ "${fate#exit }" -lt 128 ] 2>/dev/null && lived=1 ;; esac
case $fate in
none) lo=none ;;
sigbus) lo=killed; [ "$sigbus" -ge 1 ] 2>/dev/null || lo="killed (unconfirmed)" ;;
*) if [ "$lived" = 1 ] && [ "$sigbus" -ge 1 ] 2>/dev/null; then lo=survived-sigbus
   elif [ "$fate" = "exit 3" ]; then lo="survived-sigbus (unconfirmed)"
   elif [ "$fate" != completed ]; then lo=failed
   elif [ "$traps" -gt 0 ] 2>/dev/null || [ "$buslock" -gt 0 ] 2>/dev/null ||
	grep -q -e '#DB: .* took a bus_lock trap' -e '#AC: .* took a split_lock trap' "$f/dmesg.txt" 2>/dev/null; then lo=throttled
   else lo=never-trapped
   fi ;;
esac
echo "load_outcome=$lo"
# cyclictest's completed periods, all its threads (one per measured CPU),
# against those asked for (duration / interval per thread): fewer means
# an isolated vCPU was starved. ct_cpus: the CPU of each thread, in the
# order of the histogram's columns.
{ IFS= read -r cycles; IFS= read -r nthr; IFS= read -r ctcpus; } < <(json_fields "$f/cyclictest.json" '[.thread[].cycles] | add' \
	'.thread | length' '.thread | to_entries | sort_by(.key | tonumber) | map(.value.cpu | tostring) | join(",")')
echo "ct_cycles=${cycles:--1}"
echo "ct_expected=$((${nthr:-1} * dur * 1000000 / int))"
echo "ct_interval_us=$int"
echo "ct_cpus=${ctcpus:-unknown}"
echo "hist=$([ -s "$f/hist.txt" ] && echo "$f/hist.txt" || echo none)"
