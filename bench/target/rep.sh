#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# On-target runner of one native rep (TARGET=native, or copied over ssh by
# bench/target/run-native.sh): runs the guest's study job
# (bench/guest/jobs/study.sh, with slb-lib.sh beside it) on the running
# kernel in a process group of its own, and ends that whole group on
# SIGINT/SIGTERM/SIGHUP, at the deadline, when the job ends (stragglers),
# and with --watch-stdin when its standard input closes or stays silent for
# 15 s (the ssh connection was lost; bench/target/run-native.sh sends a
# byte every 2 s: a dead network closes nothing). Changes no kernel
# parameter, loads nothing.
# POSIX sh, so that a target without bash can run it.
#
#   rep.sh OUTDIR TIMEOUT_S JOBFILE [--watch-stdin]
# Leaves OUTDIR/files/ (the job's files, dmesg.txt: the kernel log lines
# that appeared during the rep, when readable; loadavg.before and .after:
# /proc/loadavg), OUTDIR/job.pgid and
# OUTDIR/status (job_status=N, timed_out=0|1, elapsed_s=S; interrupted=1
# when a signal or the lost connection ended it).
# The job file sets the job's variables (SLB_DURATION ..., SLB_MEASURE_CPUS,
# SLB_LOAD_CPUS, SLB_SEED: bench/guest/jobs/study.sh) and sources
# "$SLB_JOBS/study.sh"; SLB_CYCLICTEST may name the cyclictest binary.
# Exit status: the job's (124 on timeout), 2 on a usage error, 130 when
# interrupted or the connection was lost.
[ $# -ge 3 ] || { echo "usage: rep.sh OUTDIR TIMEOUT_S JOBFILE [--watch-stdin]" >&2; exit 2; }
out=$1 limit=$2 job=$3 watch=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/files" || exit 1
out=$(cd "$out" && pwd)
export SLB_NATIVE=1 SLB_LIB="${SLB_LIB:-$here/slb-lib.sh}" SLB_JOBS="${SLB_JOBS:-$here/jobs}"
export PATH="$here/bin:$PATH"
SLB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/slb-rep.XXXXXX") || exit 1
export SLB_TMP

cat /proc/loadavg >"$out/files/loadavg.before" 2>/dev/null
dmesg_before=-1
dmesg >"$SLB_TMP/dmesg.before" 2>/dev/null && dmesg_before=$(wc -l <"$SLB_TMP/dmesg.before")
start=$(date +%s)

# The job: a session (and so a process group) of its own, whose id is its
# PID: the whole rep's processes end with one kill of -PGID.
cd "$out/files" || exit 1
exec 9<&0
setsid sh "$job" </dev/null >"$out/job.log" 2>&1 &
pgid=$!
echo "$pgid" >"$out/job.pgid"
wdog= watcher=
end_group() { # end_group PGID
	kill -TERM "-$1" 2>/dev/null || return 0
	i=0
	while kill -0 "-$1" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "-$1" 2>/dev/null
	return 0
}
cleanup() {
	end_group "$pgid"
	[ -z "$wdog" ] || kill -KILL "-$wdog" 2>/dev/null
	[ -z "$watcher" ] || kill -KILL "-$watcher" 2>/dev/null
	rm -rf "$SLB_TMP"
}
trap 'cleanup; printf "job_status=130\ninterrupted=1\n" >"$out/status"; echo "rep.sh: interrupted; the rep'"'"'s processes ended" >&2; exit 130' INT TERM HUP
# Deadline: a watchdog of its own group ends the job's group.
setsid sh -c 'sleep "$1"; : >"$2"; kill -TERM "-$3"; sleep 2; kill -KILL "-$3"' watchdog \
	"$limit" "$out/timed_out" "$pgid" </dev/null >/dev/null 2>&1 &
wdog=$!
# Lost connection: standard input closes (EOF) or the heartbeat stops;
# tell this runner (SIGHUP). (An asynchronous command's standard input is
# /dev/null unless redirected: hand it the saved one.)
if [ "$watch" = --watch-stdin ]; then
	setsid sh -c 'while [ "$(timeout "$2" head -c 1 | wc -c)" -gt 0 ]; do :; done; kill -HUP "$1"' \
		watcher $$ 15 <&9 >/dev/null 2>&1 &
	watcher=$!
fi
wait "$pgid"
rc=$?
cleanup
trap - INT TERM HUP
timed_out=0
[ ! -e "$out/timed_out" ] || { timed_out=1; rc=124; rm -f "$out/timed_out"; }
cat /proc/loadavg >"$out/files/loadavg.after" 2>/dev/null
# The kernel log lines of this rep (what the guest's /init sends whole).
if [ "$dmesg_before" -ge 0 ] && dmesg >"$out/files/dmesg.all" 2>/dev/null; then
	tail -n +$((dmesg_before + 1)) "$out/files/dmesg.all" >"$out/files/dmesg.txt"
	rm -f "$out/files/dmesg.all"
else
	rm -f "$out/files/dmesg.all"
	echo "(kernel log not readable here)" >"$out/files/dmesg.txt"
fi
printf 'job_status=%s\ntimed_out=%s\nelapsed_s=%s\n' "$rc" "$timed_out" "$(($(date +%s) - start))" >"$out/status"
exit "$rc"
