# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of every build and run script: where the tree and the
# cache are, one style of progress and errors, argument checks, waiting,
# and the run inputs (which files decide what a guest run measures).
# The helpers of one role live beside it, each sourced after this file:
#   scripts/lib-build.sh  cache keys, patches, ccache, pruning (the builds)
#   bench/lib/job.sh      what a rep's guest sees: its job file and the
#                         bus-lock model's arguments (a run input)
#   scripts/lib-run.sh    run directories, sub-studies, statistics tools
#                         and plots (the bench scripts)
#   bench/cost/lib.sh     the emulator cost benchmarks
# Sourced, never run.

SLB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLB_CACHE=${SLB_CACHE:-${XDG_CACHE_HOME:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache}/splitlock-bench}
SLB_PROG=${SLB_PROG:-$(basename "$0")}
# Kept guests (bench/target/snapshot.sh): how many the cache holds, the
# least recently used dropped first, and the free space below which none
# is made (each is a sparse RAM file of up to the guest's memory). make
# test keeps about 50 and make bench 6: with room for fewer, a run boots
# again what was dropped.
SLB_SNAP_KEEP=${SLB_SNAP_KEEP:-64}
SLB_SNAP_MIN_FREE_MB=${SLB_SNAP_MIN_FREE_MB:-2048}

# Progress lines go to stderr so that stdout stays machine-readable.
say() { printf '[%s] %s: %s\n' "$(date +%H:%M:%S)" "$SLB_PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SLB_PROG" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s\n' "$SLB_PROG" "$*" >&2; exit 2; }

# check_number NAME VALUE MIN MAX: a usage error (exit 2) naming NAME and
# VALUE unless VALUE is a whole number from MIN to MAX.
check_number() {
	# no leading zero: the shell's arithmetic reads 010 as octal and 08 as
	# an error, where test(1) reads them as decimal
	case $2 in '' | *[!0-9]* | 0?*) usage_error "$1 '$2' is not a whole number (allowed: $3 to $4)" ;; esac
	{ [ "${#2}" -le 18 ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; } || usage_error "$1=$2 is out of range (allowed: $3 to $4)"
}

# check_choice NAME VALUE WORD...: a usage error (exit 2) naming NAME and
# VALUE unless VALUE is one of the WORDs.
check_choice() {
	local name=$1 value=$2 w
	shift 2
	for w in "$@"; do [ "$value" != "$w" ] || return 0; done
	usage_error "$name '$value' is not allowed (allowed: $*)"
}

# with_heartbeat SECONDS LABEL CMD...: run CMD, printing LABEL and the elapsed
# time every SECONDS so that long steps show they are alive.
with_heartbeat() {
	local every=$1 label=$2 start pid rc
	shift 2
	start=$(date +%s)
	"$@" &
	pid=$!
	while ! wait_timeout "$pid" "$every"; do
		say "$label: $(($(date +%s) - start)) s elapsed"
	done
	wait "$pid"
	rc=$?
	return $rc
}

# nap SECONDS: sleep without starting a process: read's timeout on a pipe
# that this shell holds both ends of and nobody writes. The polling loops
# that wait for a guest started a sleep ten times a second, about 1.3 ms
# of CPU each. Where the pipe cannot be had or read (no fd left), or read
# ends before its timeout (status 128 or less), it sleeps after all. The
# first call of a shell opens the pipe: it changes $! (save $! first) and
# the shell's children inherit the pipe, which no one writes.
nap() {
	local rc
	[ -n "${_nap_fd:-}" ] || { exec {_nap_fd}<> <(:); } 2>/dev/null || _nap_fd=none
	if [ "$_nap_fd" != none ]; then
		read -r -t "$1" -u "$_nap_fd" _ 2>/dev/null
		rc=$?
		[ "$rc" -le 128 ] || return 0
	fi
	sleep "$1"
}

# wait_timeout PID SECONDS: true once PID has exited, false after SECONDS.
wait_timeout() {
	local pid=$1 n=$(($2 * 10))
	while [ "$n" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || return 0
		nap 0.1
		n=$((n - 1))
	done
	! kill -0 "$pid" 2>/dev/null
}

# json_fields FILE EXPR...: each jq EXPR on the JSON in FILE, a line each
# (read them with IFS= read -r): its first value, empty where it fails or
# gives nothing, false or null (or FILE is missing, empty or not JSON),
# newlines in it made spaces. One jq for them all: a jq costs some 17 ms
# of CPU to start, and the scripts that asked one per field started
# thousands a make test.
json_fields() {
	local f=$1 e prog=
	shift
	for e in "$@"; do
		prog+="${prog:+, }((try ([$e] | first) catch null) // \"\" | tostring | split(\"\\n\") | join(\" \"))"
	done
	[ -s "$f" ] && jq -r "$prog" "$f" 2>/dev/null || printf '%.0s\n' "$@"
}

# run_inputs: the files, relative to $SLB_ROOT and sorted, that decide
# what a guest run measures: both patch series, rt-config, the guest
# programs, jobs and /init, the C library they link with bench/lib/job.sh
# (each rep's job file and model arguments), the build scripts with
# scripts/lib-build.sh, the committed calibrations, and the scripts that
# start a rep's guest (bench/study.sh, bench/target/guest.sh: its
# arguments and seed; bench/target/run-guest.sh and snapshot.sh). This
# file is not one.
# run_inputs_digest: 16 hex digits of sha256 over them; the manifest
# records it, and t0009 holds the README's example run to the tree that
# ships it.
run_inputs() {
	(cd "$SLB_ROOT" && find patch rt-config bench/guest bench/lib scripts/build-kernel.sh \
		results/example-calibrate-*/calibration.json \
		scripts/build-qemu.sh scripts/build-initramfs.sh scripts/check-kconfig.sh \
		scripts/lib-build.sh bench/target/run-guest.sh bench/target/snapshot.sh bench/study.sh bench/target/guest.sh \
		-type f ! -name '*.md' | LC_ALL=C sort)
}

run_inputs_digest() {
	(cd "$SLB_ROOT" && run_inputs | xargs sha256sum) | sha256sum | cut -c1-16
}
