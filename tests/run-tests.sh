#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run tests/tNNNN-*.sh (or the scripts named as arguments) and print one TAP
# stream, numbered across all scripts in the order of the list, then
# "N passed, N failed, N skipped".
#
#   run-tests.sh [-j JOBS] [--dir DIR] [--validate] [SCRIPT...]
#
# -j JOBS (default $SLB_TEST_JOBS, else 1): scripts run JOBS at a time. Each
# has its own counters ($T_STATE, tests/lib.sh) and output buffer, numbered
# from 1; the buffer is printed whole, in the order of the list, its test
# lines renumbered to follow the scripts before it. JOBS 1 streams each
# script's output as it comes. A script with a line "# t-serial" (a reason
# may follow a colon) runs with nothing beside it: those that measure the
# host (host time against a ratio), before the others start. One with a line
# "# t-host" (native split locks and cyclictest in real time, no figure
# checked, little CPU) runs in a lane of its own beside the JOBS others,
# never beside another t-host script; these start first. One with a line
# "# t-light" (it mostly waits: watchdogs, timeouts, sleeping fakes) runs
# in that lane too, after them: waiting in a JOBS slot left a CPU idle.
# --dir DIR: the directory of the scripts (default this one; the runner's
# own test, t0010, uses fake ones). --validate: check the arguments, run
# nothing (make test, before it builds).
# Exit: 0 all passed, 1 any failed, 2 bad usage (JOBS not 1 to 16, a script
# that does not exist, an unknown option), naming the value.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SLB_PROG=run-tests
. "$here/../scripts/lib.sh"

jobs=${SLB_TEST_JOBS:-1} dir=$here validate=
while [ $# -gt 0 ]; do
	case $1 in
	-j | --jobs) [ $# -ge 2 ] || usage_error "$1 needs a value (allowed: 1 to 16)"; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--dir) [ $# -ge 2 ] || usage_error "--dir needs a directory"; dir=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	--) shift; break ;;
	-*) usage_error "unknown option '$1' (allowed: -j JOBS, --dir DIR, --validate)" ;;
	*) break ;;
	esac
done
check_number JOBS "$jobs" 1 16
cd "$dir" 2>/dev/null || usage_error "--dir '$dir' is not a directory"
if [ $# -gt 0 ]; then scripts=("$@"); else scripts=(t[0-9]*.sh); fi
for t in "${scripts[@]}"; do
	[ -f "$t" ] || usage_error "no test script '$t' in $dir"
done
[ -z "$validate" ] || exit 0

W=$(mktemp -d "${TMPDIR:-/tmp}/slb-run-tests.XXXXXX")
# Each script's seconds in the last run (NAME SECONDS lines), for the order
# scripts start in at -j 2 and more: $SLB_TEST_TIMES, else for this
# directory's own scripts $SLB_CACHE/test-times.
times=${SLB_TEST_TIMES:-}
[ -n "$times" ] || [ "$dir" != "$here" ] || times=$SLB_CACHE/test-times
pids=()
# On an interrupt, end the scripts still running (JOBS > 1; with JOBS 1 the
# terminal's Ctrl-C reaches the script itself).
cleanup() {
	local p
	for p in "${pids[@]}"; do [ -z "$p" ] || kill -TERM -- "-$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# kind_of SCRIPT: serial (a "# t-serial" line: it runs alone), host ("#
# t-host": never beside another t-host script), light ("# t-light": it
# mostly waits; the t-host lane) or other, the first of these it has.
kind_of() {
	local k
	for k in serial host light; do
		grep -q "^# t-$k\b" "$1" && { echo "$k"; return; }
	done
	echo other
}

# run_one I: run script I with its own counters in $W/I/, printing its TAP
# lines numbered from 1 (a non-zero exit is one more failed test).
run_one() {
	local t=${scripts[$1]} st=$W/$1 start n
	mkdir -p "$st"
	for c in n pass fail skip; do echo 0 >"$st/$c"; done
	echo "# $t"
	start=$(date +%s)
	T_STATE=$st env --default-signal=INT bash "$t" </dev/null ||
		{ n=$(($(cat "$st/n") + 1)); echo "not ok $n - $t exited non-zero"; echo "$n" >"$st/n"; echo $(($(cat "$st/fail") + 1)) >"$st/fail"; }
	# times: this shell's children (run_one runs in a subshell of its
	# own: the script's), user and system, on its second line.
	times >"$st/times"
	echo "$(($(date +%s) - start))" >"$st/seconds"
	echo "# $t took $(cat "$st/seconds") s, $(awk 'NR == 2 { split($0, f, /[ms ]+/); printf "%.0f", f[1] * 60 + f[2] + f[3] * 60 + f[4] }' "$st/times") s of CPU"
}

# renumber OFFSET: add OFFSET to the number of each TAP test line.
renumber() {
	awk -v off="$1" '
	match($0, /^(not )?ok [0-9]+/) {
		pre = substr($0, 1, 1) == "n" ? "not ok " : "ok "
		$0 = pre (substr($0, length(pre) + 1, RLENGTH - length(pre)) + off) substr($0, RLENGTH + 1)
	}
	{ print; fflush() }'
}

echo "TAP version 13"
total=0
if [ "$jobs" = 1 ]; then
	for i in "${!scripts[@]}"; do
		run_one "$i" | renumber "$total"
		total=$((total + $(cat "$W/$i/n")))
	done
else
	# Serial scripts first, one at a time, then the others JOBS at a time,
	# with t-host ones first, then t-light ones, in a lane of their own,
	# one at a time; printing follows the list order whatever order they
	# finish in.
	kind=() order=() host=()
	for i in "${!scripts[@]}"; do kind[$i]=$(kind_of "${scripts[$i]}"); done
	for k in serial host light; do
		for i in "${!scripts[@]}"; do
			[ "${kind[$i]}" = "$k" ] || continue
			order+=("$i")
			[ "$k" = serial ] || host[$i]=1
		done
		[ "$k" != serial ] || nserial=${#order[@]}
	done
	# The others longest first, by their time in the last run of this
	# directory's scripts ($times; one never timed counts as longest), so
	# that the last to finish are short: in list order the slowest came
	# last (simulated from a run's times: 384 -> 372 s).
	while read -r _ i; do order+=("$i"); done < <(
		for i in "${!scripts[@]}"; do [ "${kind[$i]}" != other ] || echo "${scripts[$i]} $i"; done |
			awk 'FILENAME != "-" { t[$1] = $2; next } { print (($1 in t) ? t[$1] : 1e9), $2 }' <(cat "$times" 2>/dev/null) - |
			sort -s -k1,1gr)
	printed=0
	# Job control: each script in a process group of its own, which
	# cleanup ends as a whole (its guests too).
	set -m
	# flush: print every finished script at the head of the list.
	flush() {
		while [ "$printed" -lt "${#scripts[@]}" ] && [ -f "$W/$printed.done" ]; do
			renumber "$total" <"$W/$printed.out"
			cat "$W/$printed.err" >&2
			total=$((total + $(cat "$W/$printed/n")))
			printed=$((printed + 1))
		done
	}
	# reap: forget the scripts that have finished; print what can be.
	reap() {
		local k
		for k in "${!pids[@]}"; do
			if [ -f "$W/$k.done" ] || ! kill -0 "${pids[$k]}" 2>/dev/null; then
				wait "${pids[$k]}" 2>/dev/null
				touch "$W/$k.done"
				unset "pids[$k]"
			fi
		done
		flush
	}
	# start I: run script I in the background.
	start() {
		( run_one "$1"; touch "$W/$1.done" ) >"$W/$1.out" 2>"$W/$1.err" &
		pids[$1]=$!
	}
	# host_running: a script of the t-host lane is running.
	host_running() {
		local k
		for k in "${!pids[@]}"; do [ -z "${host[$k]:-}" ] || return 0; done
		return 1
	}
	# others_running: how many scripts but the t-host lane's are running.
	others_running() {
		local k n=0
		for k in "${!pids[@]}"; do [ -n "${host[$k]:-}" ] || n=$((n + 1)); done
		echo "$n"
	}
	# wait -n returns when one script ends; its .done marks which.
	for i in "${order[@]:0:$nserial}"; do
		start "$i"
		while [ "${#pids[@]}" -gt 0 ]; do wait -n 2>/dev/null; reap; done
	done
	queue=("${order[@]:$nserial}")
	while [ "${#queue[@]}" -gt 0 ]; do
		# the first script in the queue that may start now: a t-host one
		# if none runs, another if fewer than JOBS others run
		pick= others=$(others_running)
		for k in "${!queue[@]}"; do
			i=${queue[$k]}
			if [ -n "${host[$i]:-}" ]; then
				host_running && continue
			else
				[ "$others" -lt "$jobs" ] || continue
			fi
			pick=$k
			break
		done
		if [ -z "$pick" ]; then
			wait -n 2>/dev/null
			reap
			continue
		fi
		start "${queue[$pick]}"
		unset "queue[$pick]"
		queue=(${queue[@]+"${queue[@]}"})
	done
	while [ "${#pids[@]}" -gt 0 ]; do wait -n 2>/dev/null; reap; done
	flush
fi
echo "1..$total"
if [ -n "$times" ] && mkdir -p "${times%/*}" 2>/dev/null; then
	{
		for i in "${!scripts[@]}"; do [ ! -f "$W/$i/seconds" ] || echo "${scripts[$i]} $(cat "$W/$i/seconds")"; done
		cat "$times" 2>/dev/null || true
	} | awk '!seen[$1]++' >"$times.tmp.$$" && mv "$times.tmp.$$" "$times"
fi
pass=0 fail=0 skip=0
for i in "${!scripts[@]}"; do
	pass=$((pass + $(cat "$W/$i/pass"))) fail=$((fail + $(cat "$W/$i/fail"))) skip=$((skip + $(cat "$W/$i/skip")))
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
