# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the build and run scripts: where the cache lives, how
# inputs are hashed into cache keys, and one style of progress and errors.
# Sourced, never run.

SLB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLB_CACHE=${SLB_CACHE:-${XDG_CACHE_HOME:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache}/splitlock-bench}
SLB_PROG=${SLB_PROG:-$(basename "$0")}

# Progress lines go to stderr so that stdout stays machine-readable.
say() { printf '[%s] %s: %s\n' "$(date +%H:%M:%S)" "$SLB_PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SLB_PROG" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s\n' "$SLB_PROG" "$*" >&2; exit 2; }

# stats_tool OUT CMD...: run a statistics tool (slb-stats, slb-summary)
# into OUT. Its exit 1 with OUT written means some reps were unusable: say
# which (its warnings) and go on. Anything else without output fails.
stats_tool() {
	local out=$1 rc
	shift
	"$@" >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" = 1 ] && [ -s "$out" ]; then
		sed 's/^/  /' "$out.err" >&2
		say "warning: ${1##*/} found unusable reps; they are left out of $out"
		rc=0
	elif [ "$rc" != 0 ]; then
		cat "$out.err" >&2
	fi
	rm -f "$out.err"
	return "$rc"
}

# check_number NAME VALUE MIN MAX: a usage error (exit 2) naming NAME and
# VALUE unless VALUE is a whole number from MIN to MAX.
check_number() {
	case $2 in '' | *[!0-9]*) usage_error "$1 '$2' is not a whole number (allowed: $3 to $4)" ;; esac
	{ [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; } || usage_error "$1=$2 is out of range (allowed: $3 to $4)"
}

# check_choice NAME VALUE WORD...: a usage error (exit 2) naming NAME and
# VALUE unless VALUE is one of the WORDs.
check_choice() {
	local name=$1 value=$2 w
	shift 2
	for w in "$@"; do [ "$value" != "$w" ] || return 0; done
	usage_error "$name '$value' is not allowed (allowed: $*)"
}

# require_run_dir DIR: a usage error unless DIR is a study run directory.
require_run_dir() {
	[ -n "${1:-}" ] || usage_error "usage: $SLB_PROG RUNDIR"
	[ -f "$1/scenarios.list" ] || usage_error "'$1' is not a study run directory (no scenarios.list)"
}

# draw_plot SCRIPT OUTBASE VARS LOG: run plots/SCRIPT with the gnuplot
# assignments VARS (plus out and fmt) for PNG and SVG, errors to LOG; stop
# unless both OUTBASE.png and OUTBASE.svg were written.
draw_plot() {
	local script=$1 outbase=$2 vars=$3 log=$4 fmt
	for fmt in png svg; do
		(cd "$SLB_ROOT" && gnuplot -e "$vars; out='$outbase'; fmt='$fmt'" "plots/$script") 2>>"$log" ||
			die "gnuplot $script failed (log: $log)"
		[ -s "$outbase.$fmt" ] || die "gnuplot wrote no $outbase.$fmt"
	done
}

# check_run_id RESULTS ID [NOUN]: a usage error unless ID is a run id
# (letters, digits, . _ -, not starting with .) that RESULTS does not hold
# yet (NOUN, default "run", says what it would be in the message).
check_run_id() {
	case $2 in '' | .* | */* | *[!A-Za-z0-9._-]*) usage_error "--id '$2' must be letters, digits, . _ - and not start with ." ;; esac
	[ ! -e "$1/$2" ] || usage_error "${3:-run} '$2' exists in $1; refusing to overwrite it"
}

# begin_run_dir RESULTS ID STALE WHAT: a run is written into
# RESULTS/.incomplete-ID (its path in RUN_TMP, this shell's PID in its
# .pid) and renamed by end_run_dir, so that Ctrl-C or a failure leaves no
# half run. First the RESULTS/.incomplete-STALE directories that a run
# killed outright (SIGKILL, power loss) left, once their process is gone,
# are removed ("left by WHAT that did not finish"), but for a study or a
# sweep that can be resumed (its study.args or sweep.args: bench/study.sh
# or bench/sweep.sh --resume), which is named and kept; a run handed to Slurm (bench/runner/slurm.sh: the job ids in
# its .slurm-jobs) lives while Slurm still queues or runs one of its jobs.
begin_run_dir() {
	local results=$1 id=$2 glob=$3 what=$4 stale
	mkdir -p "$results" || die "cannot create $results"
	for stale in "$results"/.incomplete-$glob; do
		[ -d "$stale" ] && run_dir_dead "$stale" || continue
		if [ -f "$stale/study.args" ]; then
			say "keeping $stale: an interrupted study; 'make bench RESUME=${stale##*/.incomplete-}' finishes it (or remove it)"
			continue
		elif [ -f "$stale/sweep.args" ]; then
			say "keeping $stale: an interrupted sweep; 'make bench-sweep RESUME=${stale##*/.incomplete-}' finishes it (or remove it)"
			continue
		fi
		say "removing $stale, left by $what that did not finish"
		rm -rf "$stale"
	done
	RUN_TMP=$results/.incomplete-$id
	rm -rf "$RUN_TMP"
	# The directory appears with its .pid in it (made under a name the
	# scan above does not match, then renamed): a run starting beside this
	# one (a sweep's studies on Slurm, all at once) took a directory made
	# but not yet given its .pid for one left by a dead run, and removed it.
	local new=$results/.starting-$id.$$
	rm -rf "$new"
	{ mkdir -p "$new" && echo $$ >"$new/.pid" && mv -T "$new" "$RUN_TMP"; } || die "cannot create $RUN_TMP"
}

# run_dir_dead DIR: the run being written in DIR (begin_run_dir) has no
# process left: its .pid is gone or dead, and Slurm queues none of its jobs.
run_dir_dead() {
	local pid
	pid=$(cat "$1/.pid" 2>/dev/null)
	[ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || return 1
	[ ! -s "$1/.slurm-jobs" ] || [ -z "$(squeue -h -o %i -j "$(tr ' ' , <"$1/.slurm-jobs")" 2>/dev/null)" ]
}

# resumable_runs RESULTS: the ids of the interrupted studies in RESULTS
# that bench/study.sh --resume can finish, a line each.
resumable_runs() {
	local d
	for d in "$1"/.incomplete-*; do
		[ -f "$d/study.args" ] && run_dir_dead "$d" && echo "${d##*/.incomplete-}"
	done
	return 0
}

# end_run_dir TMP DEST: the run in TMP (begin_run_dir) is complete: it
# becomes DEST.
end_run_dir() {
	rm -f "$1/.pid"
	mv "$1" "$2" || die "could not rename $1 to $2"
}

# write_study_job DURATION WARMUP INTERVAL LOAD_RATE LOAD SYSCTLS [LINE...]:
# print a study job file: the prelude that sets the variables of
# bench/guest/jobs/study.sh (seconds, seconds, us, ops/s, scenarios.conf's
# load and sysctls), each LINE (more variables: a target's), then the line
# that sources the job (in the guest /jobs; natively rep.sh sets SLB_JOBS).
write_study_job() {
	printf 'SLB_DURATION=%s SLB_WARMUP=%s SLB_INTERVAL=%s SLB_LOAD_RATE=%s\n' "$1" "$2" "$3" "$4"
	printf 'SLB_LOAD=%q SLB_SYSCTLS=%q\n' "$5" "$6"
	[ $# -le 6 ] || printf '%s\n' "${@:7}"
	echo '. "${SLB_JOBS:-/jobs}/study.sh"'
}

# What a study measures (study.sh --measure: cyclictest, timerlat or both):
# measure_phases M: the measurements one rep runs one after the other;
# run_measures M: the histograms its reps leave (slb-summary/slb-stats
# --measure: cyclictest, timerlat-irq, timerlat-thread); primary_measure M:
# the one summary.json, stats.json, the plots and the verdicts use
# (cyclictest, or timerlat's thread latency, the same wake-up's, when
# timerlat alone ran); run_measure RUNDIR: the M a run was made with (its
# manifest; cyclictest for runs from before the option).
measure_phases() { if [ "$1" = both ]; then echo 2; else echo 1; fi; }
run_measures() {
	case $1 in
	timerlat) echo timerlat-irq timerlat-thread ;;
	both) echo cyclictest timerlat-irq timerlat-thread ;;
	*) echo cyclictest ;;
	esac
}
primary_measure() { if [ "$1" = timerlat ]; then echo timerlat-thread; else echo cyclictest; fi; }
run_measure() { jq -r '.params.measure // "cyclictest"' "$1/manifest.json" 2>/dev/null || echo cyclictest; }

# cal_jq FILE FILTER [JQ-OPTION...]: jq FILTER over FILE, an
# slb-calibrate calibration.json, with the functions of its one reader,
# bench/lib/calibration.jq (cal_check, cal_point, ...).
cal_jq() {
	jq -L "$SLB_ROOT/bench/lib" "${@:3}" "include \"calibration\"; $2" "$1"
}

# cal_resolve VALUE [NAME]: the calibration.json VALUE names, on stdout:
# a committed calibration's short name (CALIBRATION_NAMES in
# rt-config/defaults.conf: amd-epyc-kvm, xeon-trap, ...), a run directory
# that holds a calibration.json, or a file (given back as it is: its
# reader refuses it if it is none). A word that is neither a name nor
# there: usage_error naming it as NAME (default CALIBRATION) and listing
# the names.
cal_resolve() {
	local v=$1 e names=
	[ -n "${CALIBRATION_NAMES:-}" ] || . "$SLB_ROOT/rt-config/defaults.conf"
	for e in ${CALIBRATION_NAMES//,/ }; do
		[ "$v" != "${e%%:*}" ] || { echo "$SLB_ROOT/${e#*:}/calibration.json"; return 0; }
		names="$names ${e%%:*}"
	done
	if [ -d "$v" ] && [ -f "$v/calibration.json" ]; then
		echo "${v%/}/calibration.json"
	elif [ -e "$v" ] || [[ $v == */* || $v == *.json ]]; then
		echo "$v"
	else
		usage_error "${2:-CALIBRATION} '$v' is neither a committed calibration's name nor a file (names:$names; or a calibration.json, or the run directory that holds one)"
	fi
}

# bus_model_load MODEL FILE [COST]: the bus-lock model of a virtual-clock
# guest run into bus_lock_ns, bus_hold_ns, bus_cache_kb and bus_cache_ways.
# MODEL all: every vCPU that meets a split lock waits for all of it
# (bus_lock_ns as set; no hold of its own, no cache); calibrated: the
# figures come from FILE, a native calibration.json (cal_model in
# bench/lib/calibration.jq), scaled to COST ns per split lock when COST is
# given (the hold in proportion, the shield unchanged: cal_model($cost));
# bus_cal_cost_ns and bus_cal_hold_ns then hold the calibration's own
# figures and bus_scaled is 1 if COST differs from its cost (else 0). A
# FILE that is missing, unreadable or gives no model (fields missing,
# values out of range): usage_error naming it.
bus_model_load() {
	local m
	bus_hold_ns=0 bus_cache_kb=0 bus_cache_ways=8 bus_cal_cost_ns= bus_cal_hold_ns= bus_scaled=0
	check_choice BUS_LOCK_MODEL "$1" all calibrated
	[ "$1" = calibrated ] || return 0
	[ -f "$2" ] && [ -r "$2" ] ||
		usage_error "CALIBRATION '$2' is not a readable file (make calibrate writes results/calibrate-<id>/calibration.json)"
	m=$(cal_jq "$2" 'cal_model($cost | if . == "" then null else tonumber end) |
		"\(.cost_ns) \(.hold_ns) \(.cache_kb) \(.cache_ways) \(.calibrated_cost_ns) \(.calibrated_hold_ns) \(if .scaled then 1 else 0 end)"' \
		-r --arg cost "${3:-}" 2>&1) ||
		usage_error "CALIBRATION '$2' gives no bus-lock model: $(echo "$m" | sed -n '$s/^jq: error ([^)]*): //p; $s/^jq: error: //p' | grep . || echo "not JSON")"
	read -r bus_lock_ns bus_hold_ns bus_cache_kb bus_cache_ways bus_cal_cost_ns bus_cal_hold_ns bus_scaled <<<"$m"
}

# Sub-studies: a tool that runs whole studies (bench/study.sh) as its
# steps (sweep.sh, image-change.sh) starts each with sub_start, waits with
# sub_wait and ends those under way with sub_stop (its interrupt trap).
SUB_PIDS=() SUB_NAMES=() SUB_LOGS=()
# sub_start NAME LOG CMD...: run CMD in the background, its output in LOG.
sub_start() {
	local name=$1 log=$2
	shift 2
	"$@" >"$log" 2>&1 &
	SUB_PIDS+=($!) SUB_NAMES+=("$name") SUB_LOGS+=("$log")
}
# sub_stop: end the sub-studies under way (each cancels its own reps or
# jobs) and wait for them.
sub_stop() {
	[ ${#SUB_PIDS[@]} -eq 0 ] || kill -TERM "${SUB_PIDS[@]}" 2>/dev/null || true
	wait
	SUB_PIDS=() SUB_NAMES=() SUB_LOGS=()
}
# sub_wait: wait for the sub-studies started. At the first that fails:
# "the study NAME failed (log: LOG); it ends:" and its last lines, the
# others ended, return 1.
sub_wait() {
	local i
	for i in "${!SUB_PIDS[@]}"; do
		# reaped: not signalled again by sub_stop (its PID may be reused)
		wait "${SUB_PIDS[$i]}" && { unset "SUB_PIDS[$i]"; continue; }
		unset "SUB_PIDS[$i]"
		say "the study ${SUB_NAMES[$i]} failed (log: ${SUB_LOGS[$i]}); it ends:"
		tail -n 5 "${SUB_LOGS[$i]}" | sed 's/^/  /' >&2
		sub_stop
		return 1
	done
	SUB_PIDS=() SUB_NAMES=() SUB_LOGS=()
}

# bus_model_args: bench/run-guest.sh's options for the model loaded.
bus_model_args() {
	echo --bus-lock-ns "$bus_lock_ns" --bus-hold-ns "$bus_hold_ns" --bus-cache-kb "$bus_cache_kb" --bus-cache-ways "$bus_cache_ways"
}

# hash_inputs ARG...: a short key over files (name and content) and strings.
hash_inputs() {
	local a
	for a in "$@"; do
		if [ -f "$a" ]; then
			printf 'F %s\n' "${a#"$SLB_ROOT"/}"
			cat "$a"
		else
			printf 'S %s\n' "$a"
		fi
	done | sha256sum | cut -c1-16
}

# series_files DIR: the patches named by DIR/series, in order, one per line.
series_files() {
	local dir=$1 line
	[ -f "$dir/series" ] || return 0
	while IFS= read -r line; do
		line=${line%%#*}
		line=$(printf '%s' "$line" | tr -d '[:space:]')
		[ -n "$line" ] || continue
		[ -f "$dir/$line" ] || die "$dir/series names '$line', which does not exist"
		printf '%s\n' "$dir/$line"
	done <"$dir/series"
}

# apply_patches SRCDIR LOG WHAT PATCH...: apply each PATCH to SRCDIR in
# order with patch -p1 (output in LOG); stop naming the first that fails
# to apply to WHAT.
apply_patches() {
	local src=$1 log=$2 what=$3 p
	shift 3
	for p in "$@"; do
		say "applying ${p#"$SLB_ROOT"/}"
		patch -d "$src" -p1 --batch --forward --quiet <"$p" >>"$log" 2>&1 ||
			die "${p#"$SLB_ROOT"/} does not apply to $what (log: $log)"
	done
}

# cache_lock ENTRY: hold ENTRY's lock (ENTRY.lock, fd 9) until the calling
# build ends: a second build of the same cache entry (another make, a
# checkout sharing the cache) waits for the first, then finds it built,
# instead of removing the tree the first is building in.
cache_lock() {
	mkdir -p "$(dirname "$1")" || die "cannot create $(dirname "$1")"
	exec 9>"$1.lock" || die "cannot open $1.lock"
	flock -n 9 && return 0
	say "waiting for another build of $1"
	flock 9 || die "cannot lock $1.lock"
}

# run_logged LOG CMD...: run CMD with output in LOG (or on the terminal with
# V=1); on failure show the log's tail and stop.
run_logged() {
	local log=$1
	shift
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee -a "$log"
		[ "${PIPESTATUS[0]}" = 0 ] && return 0
	elif "$@" >>"$log" 2>&1; then
		return 0
	else
		tail -n 40 "$log" >&2
	fi
	die "failed: $* (full log: $log)"
}

# use_ccache: route the C compiler of the kernel and QEMU builds through
# Debian's ccache (make deps installs it) when it is there, its cache in
# $SLB_CACHE/ccache, so that a patch change rebuilds only the objects it
# touches. Not part of any cache key (lib.sh is not hashed): ccache must
# not change what is built, and the build scripts make sure it does not
# (objects identical with and without it, t0011): base_dir turns the
# absolute paths under $SLB_CACHE into relative ones (../src/...), the same
# in every cache entry, so that a new entry hits the objects of an older
# one; the build scripts map those paths in __FILE__ and debug information
# to what a build without ccache writes. SLB_CCACHE=0 builds without it.
use_ccache() {
	[ "${SLB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null && [ -d /usr/lib/ccache ] || return 0
	export CCACHE_DIR=$SLB_CACHE/ccache CCACHE_BASEDIR=$SLB_CACHE CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G} PATH=/usr/lib/ccache:$PATH
	mkdir -p "$CCACHE_DIR"
	say "compiler cache: ccache in $CCACHE_DIR"
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

# wait_timeout PID SECONDS: true once PID has exited, false after SECONDS.
wait_timeout() {
	local pid=$1 n=$(($2 * 10))
	while [ "$n" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
		n=$((n - 1))
	done
	! kill -0 "$pid" 2>/dev/null
}

# run_inputs: the files, relative to $SLB_ROOT and sorted, that decide
# what a guest run measures: both patch series, rt-config, the guest
# programs, jobs and /init, the C library they link, and the build and run
# scripts (this file among them: write_study_job writes each rep's job;
# bench/target/guest.sh gives each rep's guest its arguments and seed). run_inputs_digest: 16 hex digits of sha256 over them; the
# manifest records it, and t0009 holds the README's example run to the
# tree that ships it.
run_inputs() {
	(cd "$SLB_ROOT" && find patch rt-config bench/guest bench/lib scripts/build-kernel.sh \
		results/example-calibrate-*/calibration.json \
		scripts/build-qemu.sh scripts/build-initramfs.sh scripts/check-kconfig.sh \
		scripts/lib.sh bench/run-guest.sh bench/study.sh bench/target/guest.sh -type f ! -name '*.md' | LC_ALL=C sort)
}
run_inputs_digest() {
	(cd "$SLB_ROOT" && run_inputs | xargs sha256sum) | sha256sum | cut -c1-16
}

# prune_cache PREFIX CURRENT: keep CURRENT, the newest other
# $SLB_CACHE/PREFIX-* entry (so that switching back is fast) and any made in
# the last 12 hours (another checkout or branch building beside this one
# may still use it); remove older ones, which only take disk space.
prune_cache() {
	local prefix=$1 current=$2 old hex=[0-9a-f][0-9a-f][0-9a-f][0-9a-f]
	# An entry is its key's files: PREFIX-KEY (a directory) or PREFIX-KEY.*
	# (initramfs-KEY.cpio and initramfs-KEY.base.cpio, one entry). The
	# key's 16 hex digits: "kernel" must not take "kernel-defwarn-*" (d, e
	# and f are hex digits). Entries newest first (by their newest file).
	old=$(ls -1dt "$SLB_CACHE/$prefix"-$hex$hex$hex$hex "$SLB_CACHE/$prefix"-$hex$hex$hex$hex.* 2>/dev/null |
		sed 's/\(-[0-9a-f]\{16\}\)\..*$/\1/' | awk '!seen[$0]++' |
		grep -vxF "$(echo "$current" | sed 's/\(-[0-9a-f]\{16\}\)\..*$/\1/')" | tail -n +2 |
		while read -r e; do
			[ -n "$(find "$e" "$e".* -maxdepth 0 -mmin -720 2>/dev/null)" ] || echo "$e"
		done || true)
	[ -z "$old" ] || {
		say "pruning old cache entries: $(echo "$old" | xargs -n1 basename | tr '\n' ' ')"
		echo "$old" | while read -r e; do rm -rf "$e" "$e".*; done
	}
}

# initrd_base IMAGE: the path of IMAGE's base (scripts/build-initramfs.sh:
# the image without stress-ng, which the tests' own guests boot).
initrd_base() { echo "${1%.cpio}.base.cpio"; }

# cpu_seconds CMD...: run CMD (its output thrown away) and print the host
# CPU seconds (user + system) it and its children took; returns CMD's
# exit status. The measure of the emulator benchmarks (bench/qemu-cost.sh,
# bench/model-cost.sh, bench/boot-cost.sh).
cpu_seconds() {
	local TIMEFORMAT='%3U %3S' t rc
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	rc=$?
	awk '{ print $1 + $2 }' <<<"$t"
	return "$rc"
}

# cost_bench_init REPS MAKE-TARGET: the inputs of a benchmark that compares
# emulator runs by host time (bench/model-cost.sh, bench/boot-cost.sh; not
# yet bench/qemu-cost.sh, whose emulators are others):
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
# benchmark, bench/run-guest.sh -o DIR/LABELREP with the arguments, timed
# by cpu_seconds: "LABEL SECONDS" appended to DIR/cpu; dies naming the run
# and its outcome if the guest failed.
cost_bench_run() {
	local label=$1 rep=$2 dir=$3 cpu
	shift 3
	say "rep $rep/$reps: $label"
	cpu=$(cpu_seconds "$SLB_ROOT/bench/run-guest.sh" -o "$dir/$label$rep" "$@") ||
		die "guest run $label $rep failed: $(cat "$dir/$label$rep/outcome.json" 2>/dev/null)"
	echo "$label $cpu" >>"$dir/cpu"
}

# cost_bench_means FILE: the mean of each label's values ("LABEL VALUE"
# lines), a line each, in label order.
cost_bench_means() {
	awk '{ n[$1]++; s[$1] += $2 } END { for (v in n) printf "  %-6s %7.2f s (mean)\n", v, s[v] / n[v] }' "$1" | sort
}
