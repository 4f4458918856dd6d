# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the emulator cost benchmarks (bench/cost/): host CPU seconds
# of a command, the benchmark's inputs, one timed guest run, the means.
# Sourced after scripts/lib.sh, never run.

# cpu_seconds CMD...: run CMD (its output thrown away) and print the host
# CPU seconds (user + system) it and its children took; returns CMD's
# exit status. The measure of the emulator benchmarks (bench/cost/qemu-cost.sh,
# bench/cost/model-cost.sh, bench/cost/boot-cost.sh).
cpu_seconds() {
	local TIMEFORMAT='%3U %3S' t rc
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	rc=$?
	awk '{ print $1 + $2 }' <<<"$t"
	return "$rc"
}

# cost_bench_init REPS MAKE-TARGET: the inputs of a benchmark that compares
# emulator runs by host time (bench/cost/model-cost.sh, bench/cost/boot-cost.sh; not
# yet bench/cost/qemu-cost.sh, whose emulators are others):
# REPS (empty: 6) a whole number from 4 to 100, SLB_QEMU and, if set,
# SLB_QEMU_BASE executables, slb-ratio built. Sets reps, qemu, base and
# RATIO; a usage error (exit 2) names what is wrong.
cost_bench_init() {
	reps=${1:-6}
	case $reps in '' | *[!0-9]*) usage_error "REPS '$reps' is not a whole number from 4 to 100" ;; esac
	[ "$reps" -ge 4 ] && [ "$reps" -le 100 ] || usage_error "REPS $reps is out of range (allowed: 4 to 100: an interval needs 4 runs a side)"
	qemu=${SLB_QEMU:-}
	[ -n "$qemu" ] || usage_error "set SLB_QEMU ($2)"
	base=${SLB_QEMU_BASE:-}
	command -v "$qemu" >/dev/null || usage_error "SLB_QEMU '$qemu' is not an executable (run 'make qemu')"
	[ -z "$base" ] || command -v "$base" >/dev/null || usage_error "SLB_QEMU_BASE '$base' is not an executable"
	RATIO=$SLB_ROOT/build/host/slb-ratio
	[ -x "$RATIO" ] || die "$RATIO missing: run 'make'"
}

# cost_bench_run LABEL REP DIR RUN-GUEST-ARGS...: one guest run of such a
# benchmark, bench/target/run-guest.sh -o DIR/LABELREP with the arguments, timed
# by cpu_seconds: "LABEL SECONDS" appended to DIR/cpu; dies naming the run
# and its outcome if the guest failed.
cost_bench_run() {
	local label=$1 rep=$2 dir=$3 cpu
	shift 3
	say "rep $rep/$reps: $label"
	cpu=$(cpu_seconds "$SLB_ROOT/bench/target/run-guest.sh" -o "$dir/$label$rep" "$@") ||
		die "guest run $label $rep failed: $(cat "$dir/$label$rep/outcome.json" 2>/dev/null)"
	echo "$label $cpu" >>"$dir/cpu"
}

# cost_bench_means FILE: the mean of each label's values ("LABEL VALUE"
# lines), a line each, in label order.
cost_bench_means() {
	awk '{ n[$1]++; s[$1] += $2 } END { for (v in n) printf "  %-6s %7.2f s (mean)\n", v, s[v] / n[v] }' "$1" | sort
}
