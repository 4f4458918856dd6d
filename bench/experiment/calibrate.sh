#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make calibrate: what split locks cost on the machine this runs on, no
# emulator. Runs slb-calibrate (the issuer's ns per LOCKed operation,
# aligned and split; a victim's ns per step on another CPU under no load,
# an aligned and a split load, over working sets from inside L1 to past
# the last-level cache; how late a thread on the victim CPU is woken,
# timer and futex, under the same loads) and keeps in
# RESULTS/calibrate-<id>/ (written as
# .incomplete-calibrate-<id> and renamed at the end: Ctrl-C or a failure
# leaves nothing half-done):
#   calibration.json, calibration.txt   the tool's JSON and table
#   machine.json     CPU model, caches, kernel, /proc/cmdline, hypervisor
#                    flag (a VM is said so), huge pages, load average
#   progress.log     the tool's progress lines
#   victim.{png,svg}, victim.dat          ns per step against the working set,
#                                         one curve per load
#   slowdown.{png,svg}, slowdown.dat      split/aligned and aligned/none with
#                                         their 95 % intervals
#   wakeup.{png,svg}, wakeup.dat          the wake-up probes' ns late (p50,
#                                         p99, max) under each load (with
#                                         --wakeup none: neither)
# Split locks natively slow every CPU of the machine: the tool refuses a
# plan with more split-lock seconds than --max-split-s.
#
# Exit status: 0 done, 1 failure (also: fewer than 2 CPUs available), 2
# usage error (nothing started).
set -uo pipefail
SLB_PROG=calibrate
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/bench/lib/job.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

tool=${SLB_CALIBRATE:-$SLB_ROOT/build/guest/slb-calibrate}
duration=$CAL_DURATION_DEFAULT reps=$CAL_REPS_DEFAULT sizes=$CAL_SIZES_DEFAULT cpus=
issuer_ms=$CAL_ISSUER_MS_DEFAULT forms=all load_rate=$CAL_LOAD_RATE_DEFAULT
max_split_s=$CAL_MAX_SPLIT_S_DEFAULT results=$SLB_ROOT/results id= validate=0 sysfs=
# The wake-up probes' period: cyclictest's in the study.
wakeup=all wakeup_interval=$INTERVAL_DEFAULT wakeup_duration=

usage() {
	cat <<USAGE
Usage: calibrate.sh [options]
Measure this machine's split-lock costs (slb-calibrate); results in
RESULTS/calibrate-<id>/.

  -d, --duration S      seconds per victim run, 0.001 to 60 (default $duration)
  -r, --reps N          reps, 1 to 100 (default $reps)
  -s, --sizes LIST      working sets (e.g. 16K,1M,256M) or auto (default $sizes)
  -c, --cpus V,L        victim and load CPU (default: the last and the first)
      --issuer-ms MS    ms per form, mode and rep for the issuer (default $issuer_ms)
      --forms LIST      issuer forms or all (default $forms; see slb-calibrate --help)
      --load-rate OPS   LOCKed ops/s of the victim's load, 0 = flat out (default $load_rate)
      --wakeup LIST     wake-up probes: timer, futex, all or none (default $wakeup)
      --wakeup-interval US  their period in us, 50 to 1000000 (default $wakeup_interval,
                        cyclictest's in the study)
      --wakeup-duration S   seconds per probe, load and rep (default: --duration)
      --max-split-s S   refuse a plan with more split-lock seconds (default $max_split_s;
                        the wake-up probes' split-load seconds count too)
  -o, --results DIR     where the run goes (default results/)
      --id ID           run id (default: calibrate-date-time)
      --sysfs DIR       read the caches under DIR instead of /sys (tests)
      --validate        check the arguments, print the plan and exit (0 good, 2 bad)
  -h, --help            this text
USAGE
}

opts=$(getopt -n calibrate -o d:r:s:c:o:h \
	-l duration:,reps:,sizes:,cpus:,issuer-ms:,forms:,load-rate:,wakeup:,wakeup-interval:,wakeup-duration:,max-split-s:,results:,id:,sysfs:,validate,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-d | --duration) duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	-s | --sizes) sizes=$2; shift 2 ;;
	-c | --cpus) cpus=$2; shift 2 ;;
	--issuer-ms) issuer_ms=$2; shift 2 ;;
	--forms) forms=$2; shift 2 ;;
	--load-rate) load_rate=$2; shift 2 ;;
	--wakeup) wakeup=$2; shift 2 ;;
	--wakeup-interval) wakeup_interval=$2; shift 2 ;;
	--wakeup-duration) wakeup_duration=$2; shift 2 ;;
	--max-split-s) max_split_s=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--sysfs) sysfs=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
[ -x "$tool" ] || die "$tool is missing: run 'make all'"
args=(--duration "$duration" --reps "$reps" --sizes "$sizes" --issuer-ms "$issuer_ms" --forms "$forms"
	--load-rate "$load_rate" --wakeup "$wakeup" --wakeup-interval "$wakeup_interval" --max-split-s "$max_split_s")
[ -z "$wakeup_duration" ] || args+=(--wakeup-duration "$wakeup_duration")
[ -z "$cpus" ] || args+=(--cpus "$cpus")
[ -z "$sysfs" ] || args+=(--sysfs "$sysfs")
[ -n "$id" ] || id=calibrate-$(date +%Y%m%d-%H%M%S)
check_run_id "$results" "$id"
# The tool checks the rest (exit 2 naming the value; 1 when this machine
# has fewer than 2 CPUs for it) and prints the plan.
plan=$("$tool" --validate "${args[@]}" 2>&1)
rc=$?
[ "$rc" = 0 ] || { printf '%s\n' "$plan" >&2; exit "$rc"; }
[ "$validate" = 0 ] || { printf '%s\n' "$plan" >&2; exit 0; }

begin_run_dir "$results" "$id" 'calibrate-*' "a calibration"
tmp=$RUN_TMP
tool_pid=
abort() {
	[ -z "$tool_pid" ] || { kill -TERM "$tool_pid" 2>/dev/null; wait "$tool_pid" 2>/dev/null; }
	rm -rf "$tmp"
	say "interrupted: nothing kept of $id"
	exit 130
}
trap abort INT TERM HUP

start=$(date +%s) date=$(date -u +%Y-%m-%dT%H:%M:%SZ) load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say "calibrating into $tmp (load average $load_start)"
# In the background, so that a signal reaches abort at once.
"$tool" "${args[@]}" --json-out "$tmp/calibration.json" --log "$tmp/progress.log" >"$tmp/calibration.txt" &
tool_pid=$!
wait "$tool_pid"
rc=$?
tool_pid=
[ "$rc" = 0 ] || die "slb-calibrate failed (exit $rc; log: $tmp/progress.log)"

jq --arg id "$id" --arg date "$date" --arg kver "$(uname -v)" --arg cmdline "$(cat /proc/cmdline)" \
	--arg thp "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)" \
	--arg load_start "$load_start" --arg load_end "$(cut -d' ' -f1-3 /proc/loadavg)" --argjson nproc "$(nproc)" '
	.machine + {run_id: $id, date: $date, kernel_version: $kver, cmdline: $cmdline, nproc: $nproc,
	  transparent_hugepage: $thp, loadavg_start: $load_start, loadavg_end: $load_end,
	  vm: .machine.hypervisor,
	  note: (if .machine.hypervisor then
	    "this machine is a virtual machine (CPUID hypervisor flag): the figures are real hardware " +
	    "seen through a hypervisor, which may trap split locks (each then costs its issuer an exit) " +
	    "and shares the caches with other guests"
	  else "no hypervisor flag: bare metal as far as CPUID tells" end)}' \
	"$tmp/calibration.json" >"$tmp/machine.json" || die "could not write machine.json"

# Plot data: one row per working set; a missing interval is drawn as the point.
cal_jq "$tmp/calibration.json" cal_victim_dat -r >"$tmp/victim.dat" || die "could not write victim.dat"
cal_jq "$tmp/calibration.json" cal_slowdown_dat -r >"$tmp/slowdown.dat" || die "could not write slowdown.dat"
vars=$(cal_jq "$tmp/calibration.json" 'cal_plot_vars($id)' -r --arg id "$id") || die "could not read calibration.json"
draw_plot calibrate-victim.gp "$tmp/victim" "datafile='$tmp/victim.dat'; $vars" "$tmp/gnuplot.log"
draw_plot calibrate-slowdown.gp "$tmp/slowdown" "datafile='$tmp/slowdown.dat'; $vars" "$tmp/gnuplot.log"
series=$(cal_jq "$tmp/calibration.json" cal_wakeup_series -r) || die "could not read calibration.json's wake-up probes"
if [ -n "$series" ]; then
	cal_jq "$tmp/calibration.json" cal_wakeup_dat -r >"$tmp/wakeup.dat" || die "could not write wakeup.dat"
	wvars=$(cal_jq "$tmp/calibration.json" '"wake_interval=\(.wakeup.interval_us); wake_sched=\"\(.wakeup.sched)\""' -r) ||
		die "could not read calibration.json's wake-up probes"
	draw_plot calibrate-wakeup.gp "$tmp/wakeup" "datafile='$tmp/wakeup.dat'; series='$series'; $vars; $wvars" "$tmp/gnuplot.log"
fi
[ -s "$tmp/gnuplot.log" ] || rm -f "$tmp/gnuplot.log"
end_run_dir "$tmp" "$results/$id"
say "calibration $id complete in $(($(date +%s) - start)) s: $results/$id"
cat "$results/$id/calibration.txt"
