#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# TARGET=native end to end on this machine's running kernel (tiny: 3
# scenarios x 2 reps of 1 s; the split load rate-limited to 2000 split
# locks per second, about 5 ms of bus locks per rep here): the results
# layout of a guest run, the scenarios the running kernel cannot run
# skipped with why (and the report saying which boot runs them), the
# manifest naming the machine; the kernel's split-lock mode derived from
# the kernel log or command line (simulated facts); every process of a
# rep ended at the deadline, when cyclictest is killed and on Ctrl-C; bad
# input refused before anything starts.
# t-host: native split locks and cyclictest on this machine's CPUs, in real time
. "$(dirname "$0")/lib.sh"
ST=$T_ROOT/bench/study.sh
RN=$T_ROOT/bench/target/run-native.sh
if [ "$(id -u)" != 0 ] || ! command -v cyclictest >/dev/null || [ ! -x "$GUESTBIN/slb-load" ]; then
	t_skip "native study tests" "needs root, cyclictest (make deps) and build/guest/slb-load (make)"
	exit 0
fi
res=$T_TMP/results
# no group PGID has a process left
group_gone() { ! pgrep -g "$1" >/dev/null; }
# wait_gone PGID: until the group is empty (at most 20 s; not a timing test)
wait_gone() { for _ in $(seq 1 100); do group_gone "$1" && return 0; sleep 0.2; done; echo "group $1 still has: $(pgrep -a -g "$1")"; return 1; }

# Two scenarios no kernel here satisfies, whatever the machine: a kernel
# option not on the command line, a sysctl value other than the current.
mit=$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo absent)
other=$([ "$mit" = 1 ] && echo 0 || echo 1)
cp "$T_ROOT/rt-config/scenarios.conf" "$T_TMP/s.conf"
cat >>"$T_TMP/s.conf" <<CONF
needs-token | slb.test.token=1 | none | | - | none | a kernel option this kernel lacks
needs-sysctl | split_lock_detect=off | none | kernel.split_lock_mitigate=$other | - | none | a sysctl this kernel does not have
CONF
last=$(cut -d- -f2 /sys/devices/system/cpu/online | cut -d, -f1)
SLB_SCENARIO_FILE=$T_TMP/s.conf "$ST" --target native --scenarios baseline,aligned,split-off,split-on,needs-token,needs-sysctl,warn2-nomitigate-nofix \
	--reps 2 --duration 1 --load-rate 2000 --results "$res" --id n >"$T_TMP/n.out" 2>&1
rc=$?
run=$res/n
t_ok "native study: 3 scenarios x 2 reps complete (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/n.out'; exit 1; }"
layout() {
	local s r f
	for s in baseline aligned split-off; do
		for r in 1 2; do
			for f in outcome.json rep.info status files/hist.txt files/cyclictest.json files/facts.txt \
				files/load.fate files/interrupts.before files/interrupts.after files/loadavg.before files/loadavg.after; do
				[ -s "$run/$s/rep$r/$f" ] || { echo "missing $s/rep$r/$f"; return 1; }
			done
			# the kernel log lines of the rep: often none
			[ -f "$run/$s/rep$r/files/dmesg.txt" ] || { echo "missing $s/rep$r/files/dmesg.txt"; return 1; }
			jq -e . "$run/$s/rep$r/files/cyclictest.json" >/dev/null || return 1
			grep -qx outcome=ok "$run/$s/rep$r/rep.info" || { echo "$s rep $r: $(grep outcome= "$run/$s/rep$r/rep.info")"; return 1; }
		done
	done
	for f in manifest.json summary.json summary.csv stats.json report.md report.html plots/overlay.png plots/hist-split-off.svg; do
		[ -s "$run/$f" ] || { echo "missing $f"; return 1; }
	done
}
t_ok "... the guest study's layout: per rep outcome, rep.info, histogram, cyclictest JSON, facts, dmesg; stats, report, plots" layout
t_ok "... only the runnable scenarios are in the run" sh -c "[ \"\$(cat '$run/scenarios.list' | tr '\n' ' ')\" = 'baseline aligned split-off ' ]"
t_ok "... summary: 2 of 2 reps ok in each" jq -e '[.scenarios[] | .reps_ok] == [2, 2, 2]' "$run/summary.json"
t_ok "... split-off's load: split, 2000 ops/s on the other CPUs, ran to the end" sh -c "
	[ -s '$run/split-off/rep1/files/load.json' ] &&
	jq -e '.mode == \"split\" and .rate == 2000 and .finished' '$run/split-off/rep1/files/load.json' &&
	grep -qx 'measured=$last' '$run/split-off/rep1/files/facts.txt' && grep -qx completed '$run/split-off/rep2/files/load.fate'"
cycles() { # rep.info has cyclictest's own count of periods, and the 1000 asked for
	local c
	c=$(jq -r '.thread["0"].cycles' "$run/baseline/rep1/files/cyclictest.json")
	[ "$c" -gt 0 ] && grep -qx "ct_cycles=$c" "$run/baseline/rep1/rep.info" && grep -qx ct_expected=1000 "$run/baseline/rep1/rep.info"
}
t_ok "... cyclictest's periods, counted and asked for, in rep.info" cycles
skipped_has() { awk -F'\t' -v s="$1" -v w="$2" '$1 == s && index($2, w) { f = 1 } END { exit !f }' "$run/skipped.txt" || { echo "skipped.txt:"; cat "$run/skipped.txt"; return 1; }; }
t_ok "skipped: a kernel option the running kernel lacks" skipped_has needs-token "needs slb.test.token=1 on the kernel command line; this kernel lacks it"
t_ok "skipped: a sysctl the running kernel does not have (not set by the study)" skipped_has needs-sysctl "needs sysctl kernel.split_lock_mitigate=$other; this kernel has $mit"
t_ok "skipped: a guest kernel variant" skipped_has warn2-nomitigate-nofix "needs the kernel variant 'nofix'"
t_ok "... and a scenario's CPU count beyond this machine's" skipped_has warn2-nomitigate-nofix "needs 3 CPUs"
if ! grep -qw -e split_lock_detect -e bus_lock_detect /proc/cpuinfo; then
	t_ok "skipped: split-on, this CPU has no split-lock detection" skipped_has split-on "needs split_lock_detect=fatal; this CPU has no split-lock detection"
	t_ok "manifest: detection off, read from the CPU flags" jq -e '.target.split_lock.mode == "off" and (.target.split_lock.cpu_split_lock_detect | not)' "$run/manifest.json"
else
	t_skip "split-on's reason on a CPU without detection" "this CPU has split-lock detection"
	t_skip "manifest: detection off on a CPU without it" "this CPU has split-lock detection"
fi
t_ok "the report has the skipped scenarios, why and what runs them" sh -c "grep -q '^## Skipped scenarios' '$run/report.md' &&
	grep -q '^| needs-sysctl | needs sysctl kernel.split_lock_mitigate=$other; this kernel has $mit .* | sysctl -w kernel.split_lock_mitigate=$other |' '$run/report.md' &&
	grep -q '^- next boot: \`slb.test.token=1\` runs needs-token; then \`make compare A=n B=<that run>\`' '$run/report.md'"
t_ok "the report says real time on this machine, not emulated" sh -c "grep -q '^\*\*Native, real time:\*\*' '$run/report.md' && ! grep -q 'Emulated' '$run/report.md'"
t_ok "the summary says real time on the measured CPU, not emulated" sh -c "head -n 1 '$run/summary.txt' | grep -q 'latency on the measured CPU, us of real time (native)' && jq -e '.emulated == false' '$run/summary.json'"
t_ok "the plots say native, real time, not emulated" sh -c "grep -q 'native: $(uname -n), run n' '$run/plots/overlay.svg' &&
	grep -q 'latency (us, real time' '$run/plots/ccdf.svg' && ! grep -q 'emulated' '$run/plots/overlay.svg'"
model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
t_ok "manifest: not emulated, the target's CPU, kernel, command line, measured CPU, skipped scenarios" jq -e --arg m "$model" \
	--arg k "$(uname -r)" --arg c "$(cat /proc/cmdline)" --argjson last "$last" '.emulated == false and .target.kind == "native" and .target.cpu == $m
	and .target.kernel == $k and .target.cmdline == $c and .target.measured_cpu == $last and (.skipped | length) == 4
	and .params.load_rate == 2000 and .simulated_facts == null and (.target.loadavg_at_start | test("^[0-9.]+ "))' "$run/manifest.json"
t_ok "the progress says which scenarios it skips" grep -q 'skipping needs-token: needs slb.test.token=1' "$T_TMP/n.out"
allgone() { local f; for f in "$run"/*/rep*/job.pgid; do group_gone "$(cat "$f")" || { echo "left: $(pgrep -a -g "$(cat "$f")")"; return 1; }; done; }
t_ok "no process of any rep is left" allgone

# The mode the kernel runs is read, not assumed: simulated facts of a CPU
# with detection; nothing can run, so nothing does.
facts() { printf '%s\n' "$@" >"$T_TMP/facts"; }
said() { grep -q -- "$1" "$T_TMP/sim.out" || { echo "wanted: $1"; cat "$T_TMP/sim.out"; return 1; }; }
# sim [SCENARIOS]: (rate-limited, in case one ran after all)
sim() { SLB_TARGET_FACTS=$T_TMP/facts "$ST" --target native --scenarios "${1:-baseline,split-on,split-ratelimit}" --reps 1 --duration 1 \
	--load-rate 100 --results "$res" --id sim >"$T_TMP/sim.out" 2>&1; echo "exit $?" >>"$T_TMP/sim.out"; }
facts flag_split_lock_detect=yes flag_bus_lock_detect=no dmesg_readable=yes 'dmesg_split_lock=enabled, mode warn|#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks'
sim
t_ok "kernel log 'enabled, mode warn': baseline needs off, split-on fatal; nothing runs (exit 1)" sh -c "
	grep -q 'skipping baseline: needs split_lock_detect=off; this kernel runs warn' '$T_TMP/sim.out' &&
	grep -q 'skipping split-on: needs split_lock_detect=fatal; this kernel runs warn' '$T_TMP/sim.out' &&
	grep -q 'no scenario can run on native' '$T_TMP/sim.out' && grep -qx 'exit 1' '$T_TMP/sim.out' && [ ! -e '$res/sim' ]"
t_ok "... ratelimit needs #DB, which the simulated CPU lacks" said 'skipping split-ratelimit: needs split_lock_detect=ratelimit:10, which works by bus-lock detection (#DB); this CPU has none'
facts flag_split_lock_detect=yes dmesg_readable=yes 'dmesg_split_lock=#AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks'
sim baseline,split-ratelimit
t_ok "upstream's kernel log sentence for fatal reads as fatal" said 'skipping baseline: needs split_lock_detect=off; this kernel runs fatal'
facts flag_split_lock_detect=yes dmesg_readable=no dmesg_split_lock= cmdline_split_lock_detect=none
sim
t_ok "no kernel log, no option: the kernel's default, warn" said 'split-lock detection: warn (no split_lock_detect= on the command line'
facts flag_split_lock_detect=yes dmesg_readable=no dmesg_split_lock= cmdline_split_lock_detect=ratelimit:5 flag_bus_lock_detect=yes
sim
t_ok "no kernel log: the command line's option" said 'skipping split-ratelimit: needs split_lock_detect=ratelimit:10; this kernel runs ratelimit:5'
# detect.sh reads the command line's option as the kernels do: the last
# split_lock_detect=VALUE, a bare one only where there is none (it once
# let the last word win: "=warn then bare" read as bare, a mode unknown).
cmdline_sld() { SLB_CMDLINE=$1 SLB_LIB=$T_ROOT/bench/guest/slb-lib.sh sh "$T_ROOT/bench/target/detect.sh" | sed -n 's/^cmdline_split_lock_detect=//p'; }
sld_reads() { local got; got=$(cmdline_sld "$1"); [ "$got" = "$2" ] || { echo "'$1' read as '$got', not '$2'"; return 1; }; }
t_ok "detect.sh: split_lock_detect=warn then a bare one reads warn" sld_reads "ro split_lock_detect=warn quiet split_lock_detect" warn
t_ok "... a bare one then =off reads off" sld_reads "split_lock_detect split_lock_detect=off" off
t_ok "... the last of two values wins" sld_reads "split_lock_detect=fatal split_lock_detect=ratelimit:5" ratelimit:5
t_ok "... a bare one alone reads bare" sld_reads "ro split_lock_detect" bare
t_ok "... neither reads none" sld_reads "ro quiet" none
t_ok "... nor does an empty value, which no kernel matches" sld_reads "split_lock_detect=" none
t_ok "... a bare one and an empty value, both kernels' default" sld_reads "split_lock_detect split_lock_detect=" none

# The deadline and a killed cyclictest end every process of the rep.
(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && write_study_job 30 0 1000 100 slb-load:aligned "" "SLB_MEASURE_CPUS=$last SLB_LOAD_CPUS=0 SLB_SEED=1") >"$T_TMP/long.job"
"$RN" -o "$T_TMP/dl" -j "$T_TMP/long.job" -t 2 >"$T_TMP/dl.outcome" 2>&1
t_ok "a rep past its deadline: outcome timeout" grep -qx timeout "$T_TMP/dl.outcome"
t_ok "... status 124, and its processes are gone" sh -c "grep -qx job_status=124 '$T_TMP/dl/status' && ! pgrep -g \$(cat '$T_TMP/dl/job.pgid') >/dev/null"
"$RN" -o "$T_TMP/kc" -j "$T_TMP/long.job" -t 100 >"$T_TMP/kc.outcome" 2>&1 &
rnpid=$!
for _ in $(seq 1 100); do [ -s "$T_TMP/kc/job.pgid" ] && pgrep -g "$(cat "$T_TMP/kc/job.pgid")" -x cyclictest >/dev/null && break; sleep 0.2; done
pgid=$(cat "$T_TMP/kc/job.pgid" 2>/dev/null)
pkill -KILL -g "$pgid" -x cyclictest
wait "$rnpid"
t_ok "cyclictest killed mid-rep: outcome job-failed" grep -qx job-failed "$T_TMP/kc.outcome"
t_ok "... the load did not run on: the rep's processes are gone" sh -c "grep -qx job_status=137 '$T_TMP/kc/status' && ! grep -qx completed '$T_TMP/kc/files/load.fate' 2>/dev/null && ! pgrep -g '$pgid' >/dev/null"

# Ctrl-C: exit 130, nothing kept, no process of the rep left.
env --default-signal=INT "$ST" --target native --scenarios aligned --reps 1 --duration 30 --load-rate 100 \
	--results "$res" --id int >"$T_TMP/int.out" 2>&1 &
stpid=$!
for _ in $(seq 1 100); do pg=$(cat "$res/.incomplete-int/aligned/rep1/job.pgid" 2>/dev/null) && [ -n "$pg" ] && pgrep -g "$pg" -x cyclictest >/dev/null && break; sleep 0.2; done
kill -INT "$stpid"
wait "$stpid"
rc=$?
t_ok "an interrupted native study exits 130 and keeps nothing" sh -c "[ $rc = 130 ] && [ ! -e '$res/int' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null"
t_ok "... and no process of its rep is left" wait_gone "${pg:-0}"

# Bad input: exit 2, one line naming the value, nothing started.
refuses() { local w=$1; shift; t_refuses "$w" "$ST" --results "$res" --reps 1 --duration 1 "$@"; }
make -s -C "$T_ROOT" bench TARGET=bogus >"$T_TMP/make.out" 2>&1
t_ok "make bench TARGET=bogus stops with exit 2 before building" sh -c "[ $? = 2 ] && grep -q \"TARGET 'bogus' is not allowed\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"
t_ok "unknown TARGET" refuses "TARGET 'bogus' is not allowed (allowed: guest, native, ssh:" --validate --target bogus
t_ok "ssh target without a host" refuses "TARGET 'ssh:' is not ssh:" --validate --target ssh:
t_ok "DURATION=0 natively" refuses "DURATION=0 is out of range (allowed: 1 to 3600)" --validate --target native --duration 0
t_ok "--measure-cpu for the guest" refuses "--measure-cpu/--load-cpus are for TARGET=native or ssh" --validate --measure-cpu 1 --duration 3
t_ok "a measured CPU that does not exist" refuses "MEASURE_CPU 4000 does not exist on this machine (online: " --target native --scenarios baseline --measure-cpu 4000
t_ok "a load CPU list with a CPU that does not exist" refuses "LOAD_CPUS '0,4001': CPU 4001 does not exist on this machine" --target native --scenarios baseline --measure-cpu 1 --load-cpus 0,4001
t_ok "a load CPU list that is no list" refuses "LOAD_CPUS '0;1' is not a CPU list" --validate --target native --load-cpus '0;1'
facts cpus_online_list=0
one_cpu() { SLB_TARGET_FACTS=$T_TMP/facts refuses "this machine has one CPU (0): the study needs one CPU to measure and another for the load" --target native --scenarios baseline; }
t_ok "one CPU (simulated): refused" one_cpu
no_ct() { SLB_CYCLICTEST=/nonexistent/cyclictest refuses "cyclictest ('/nonexistent/cyclictest') is not installed on this machine: install Debian rt-tests" --target native --scenarios baseline; }
t_ok "missing cyclictest" no_ct
t_ok "nothing was started by the refused runs" sh -c "! ls -d '$res'/.incomplete-* '$res/sim' 2>/dev/null"
# The unprivileged user must reach the checkout: not from a private
# directory (mktemp -d makes one, mode 700).
if ! command -v setpriv >/dev/null; then
	t_skip "not root: refused" "no setpriv"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ST"; then
	t_skip "not root: refused" "uid 65534 cannot reach $ST (a private directory above the checkout)"
else
	t_ok "not root: refused (SCHED_FIFO)" t_refuses "TARGET=native needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ST" --validate --results "$T_TMP/nobody" --target native --scenarios baseline
fi
