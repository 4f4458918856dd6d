#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make validate-model (issue 21): the bus-lock model against the machine,
# side by side. Runs the calibration's victim and issuer benchmark
# (slb-calibrate, bench/guest/jobs/calibrate.sh) inside the emulated guest
# (QEMU TCG, virtual clock, -cpu ...,bus-lock-ns=N: the model) and sets it
# beside a native calibration (make calibrate's calibration.json; none is
# taken here: native split locks slow the whole machine). Per level
# (arith, L1, L2, L3..., DRAM) the victim's slowdown under a split load
# (split / aligned, Hodges-Lehmann with 95 % intervals) in the model and
# natively, and model / native; the issuer's ns per split LOCK (the load's
# form) in both, and the model's against bus-lock-ns (it should come out
# near it); and the wake-up probes (timer, futex: how late a thread on the
# victim CPU is woken, the path cyclictest measures) when the native
# calibration has them: per probe and statistic (p50, p99, max of each
# rep's wake-ups) split / aligned in both and model / native, the guest
# woken at the native run's interval. Results in RESULTS/<id>/ (written
# as .incomplete-<id> and
# renamed at the end: Ctrl-C or a failure leaves nothing half-done):
#   validation.json, validation.txt, validation.md   the comparison (the
#                    Markdown table is docs/findings.md's)
#   model.calibration.json, model.calibration.txt, model.progress.log,
#   model.facts.txt  the guest's calibration (facts: its CPUs and caches)
#   native.calibration.json   a copy of the native one (its path in
#                    validation.json)
#   guest/, guest.job   the guest run (console.log, outcome.json, qemu-cmd)
#                    and the job it ran
#   slowdown.{png,svg}, model.dat, native.dat   split / aligned against the
#                    working set, model and native
#
# Levels are the native run's: its .levels name the working set that
# stands for each level (L1 16 KiB, L2 1 MiB, ...), and the guest runs
# those same sizes, so that a row compares one working set. The guest's own
# cache labels (from the emulated CPU's CPUID) are not used: TCG has no
# cache model and the virtual clock charges every instruction 1 ns wherever
# its data is. A size past what the guest's RAM holds (a quarter of it,
# slb-calibrate's limit) shrinks to the largest power of two that fits,
# and the levels below it to a quarter of the level above at most, so that
# each level keeps a size of its own (validation.json says which shrank).
#
# Exit status: 0 done, 1 failure (the guest run failed, a tool failed), 2
# usage error (nothing started): bad options, or a native or model
# calibration.json that is missing, unreadable, not JSON or lacks fields.
set -uo pipefail
SLB_PROG=validate-model
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/bench/lib/job.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

# Guest defaults: emulation runs some 50 times slower than the virtual
# time it shows with both vCPUs busy, so short runs (virtual seconds) and
# the 4 reps a ratio's 95 % interval needs: about two minutes in all.
duration=0.03 reps=4 sizes=auto memory=512 issuer_ms=5
# The wake-up probes: virtual seconds per probe, load and rep; default
# the native run's (as many wake-ups: a max over fewer is lower), at most
# 1 s (the victim vCPU sleeps between wake-ups and the load is one loop:
# these run faster than the rest).
wakeup_duration=
bus_lock_ns=$BUS_LOCK_NS_DEFAULT quantum_ns=$QUANTUM_NS_DEFAULT bus_lock_ns_given=0
bus_model=$BUS_LOCK_MODEL_DEFAULT
native= model= results=$SLB_ROOT/results id= validate=0

usage() {
	cat <<USAGE
Usage: validate-model.sh [options]
The bus-lock model (slb-calibrate in the emulated guest) against a native
calibration, per level; results in RESULTS/<id>/.

  -n, --native FILE     a native calibration.json, the run directory that
                        holds one, or a committed calibration's name
                        ($(echo "$CALIBRATION_NAMES" | sed 's/:[^,]*//g; s/,/, /g')) (default:
                        the newest RESULTS/calibrate-*/calibration.json,
                        else $CALIBRATION_DEFAULT)
  -m, --model FILE      a model calibration.json from an earlier guest run
                        (e.g. a validation's model.calibration.json): no guest
                        is booted; give the model options it ran with
      --bus-lock-model M  calibrated (made from the native calibration:
                        bench/lib/calibration.jq cal_model) or all (every
                        vCPU waits --bus-lock-ns per split lock: the worst
                        case); default $bus_model
      --bus-lock-ns N   model all: ns per bus lock, 0 to 1000000 (default $bus_lock_ns)
      --quantum-ns N    lock-step quantum, 1000 to 10000000 (default $quantum_ns)
  -s, --sizes LIST      guest working sets, one per native cache level from L1
                        to DRAM (e.g. 16K,1M,16M,64M), or auto: the native
                        run's, shrunk to fit the guest (default $sizes)
  -d, --duration S      virtual seconds per victim run, 0.001 to 60 (default $duration)
      --wakeup-duration S  virtual seconds per wake-up probe run (probe, load,
                        rep), 0.001 to 60, when the native calibration has the
                        probes (default: the native run's, at most 1)
  -r, --reps N          reps, 4 to 100 (default $reps)
      --memory MB       guest RAM, 256 to 16384 (default $memory)
  -o, --results DIR     where the run goes (default results/)
      --id ID           run id (default: validate-date-time)
      --validate        check the arguments, print the plan and exit (0 good, 2 bad)
  -h, --help            this text
Environment: SLB_QEMU, SLB_INITRD (set by make validate-model).
USAGE
}

opts=$(getopt -n validate-model -o n:m:s:d:r:o:h \
	-l native:,model:,bus-lock-model:,bus-lock-ns:,quantum-ns:,sizes:,duration:,wakeup-duration:,reps:,memory:,results:,id:,validate,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-n | --native) native=$2; shift 2 ;;
	-m | --model) model=$2; shift 2 ;;
	--bus-lock-ns) bus_lock_ns=$2 bus_lock_ns_given=1; shift 2 ;;
	--bus-lock-model) bus_model=$2; shift 2 ;;
	--quantum-ns) quantum_ns=$2; shift 2 ;;
	-s | --sizes) sizes=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	--wakeup-duration) wakeup_duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	--memory) memory=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
check_number --bus-lock-ns "$bus_lock_ns" 0 1000000
check_choice --bus-lock-model "$bus_model" calibrated all
[ "$bus_model" = all ] || [ "$bus_lock_ns_given" = 0 ] ||
	usage_error "--bus-lock-ns $bus_lock_ns is for --bus-lock-model all (calibrated takes its figures from the native calibration)"
check_number --quantum-ns "$quantum_ns" 1000 10000000
check_number --reps "$reps" 4 100
check_number --memory "$memory" 256 16384
[[ $duration =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v d="$duration" 'BEGIN { exit !(d >= 0.001 && d <= 60) }' ||
	usage_error "--duration '$duration' is not a number of seconds from 0.001 to 60"
if [ -n "$wakeup_duration" ]; then
	[[ $wakeup_duration =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v d="$wakeup_duration" 'BEGIN { exit !(d >= 0.001 && d <= 60) }' ||
		usage_error "--wakeup-duration '$wakeup_duration' is not a number of seconds from 0.001 to 60"
fi
[ -n "$id" ] || id=validate-$(date +%Y%m%d-%H%M%S)
check_run_id "$results" "$id"

# check_calibration OPTION FILE: a usage error naming FILE unless it is a
# readable calibration.json with the fields read here.
check_calibration() {
	local why
	[ -f "$2" ] || usage_error "$1 '$2' does not exist"
	[ -r "$2" ] || usage_error "$1 '$2' is not readable"
	jq -e . "$2" >/dev/null 2>&1 || usage_error "$1 '$2' is not JSON"
	why=$(cal_jq "$2" 'cal_check | cal_wakeup_check | empty' 2>&1) ||
		usage_error "$1 '$2' is not an slb-calibrate calibration.json: ${why#jq: error*: }"
}
if [ -z "$native" ]; then
	native=$(ls -1t "$results"/calibrate-*/calibration.json 2>/dev/null | head -n 1)
	[ -n "$native" ] || native=$SLB_ROOT/$CALIBRATION_DEFAULT
else
	native=$(cal_resolve "$native" --native) || exit 2
fi
check_calibration --native "$native"
bus_model_load "$bus_model" "$native"
[ -z "$model" ] || check_calibration --model "$model"

# model_words: the model in a few words, for the plan and the tables.
model_words() {
	if [ "$bus_model" = calibrated ]; then
		echo "calibrated model: a split lock costs ${bus_lock_ns} ns, holds the bus ${bus_hold_ns} ns, delays $([ "$bus_cache_kb" = 0 ] && echo "every access (no cache shields)" || echo "misses of a ${bus_cache_kb} KiB cache")"
	else
		echo "all-stall model: bus-lock-ns $bus_lock_ns"
	fi
}

# The native levels, in order: name, task and the working set that stands
# for it (bytes; - for the arithmetic loop).
mapfile -t levels < <(cal_jq "$native" '.levels[] | "\(.level) \(.task) \(.bytes // "-")"' -r)
chase_levels=() native_bytes=()
for l in "${levels[@]}"; do
	read -r name task bytes <<<"$l"
	[ "$task" = chase ] || continue
	chase_levels+=("$name") native_bytes+=("$bytes")
done
[ ${#chase_levels[@]} -gt 0 ] || usage_error "--native '$native' has no working-set levels"

# to_bytes SIZE: 16K, 1M, 2G or bytes; nothing when SIZE is none of them.
to_bytes() {
	local n=${1%[KkMmGg]} m=1
	case $1 in *[Kk]) m=1024 ;; *[Mm]) m=1048576 ;; *[Gg]) m=1073741824 ;; esac
	case $n in '' | *[!0-9]*) return ;; esac
	echo $((n * m))
}
# A quarter of the guest's RAM as the guest kernel leaves it (some 4 % goes
# to the kernel): slb-calibrate's limit, with a margin.
max_bytes=$((memory * 1048576 / 5))
model_bytes=()
if [ "$sizes" = auto ] && [ -n "$model" ]; then
	# An earlier model run: its working sets, when one per level.
	mapfile -t model_bytes < <(cal_jq "$model" 'cal_chase | .bytes' -r)
	[ ${#model_bytes[@]} = ${#chase_levels[@]} ] || model_bytes=()
fi
if [ "$sizes" = auto ] && [ ${#model_bytes[@]} = 0 ]; then
	cap=1
	while [ $((cap * 2)) -le "$max_bytes" ]; do cap=$((cap * 2)); done
	for ((i = ${#native_bytes[@]} - 1; i >= 0; i--)); do
		b=${native_bytes[$i]}
		[ "$b" -le "$cap" ] || b=$cap
		model_bytes[$i]=$b
		cap=$((b / 4))
	done
elif [ "$sizes" != auto ]; then
	IFS=, read -ra list <<<"$sizes"
	[ ${#list[@]} = ${#chase_levels[@]} ] ||
		usage_error "--sizes '$sizes' names ${#list[@]} working sets; the native run has ${#chase_levels[@]} levels (${chase_levels[*]}): one each"
	prev=0
	for s in "${list[@]}"; do
		b=$(to_bytes "$s")
		[ -n "$b" ] || usage_error "--sizes: '$s' is not a size (allowed: bytes, or a number with K, M or G)"
		{ [ "$b" -ge 1024 ] && [ $((b % 64)) = 0 ]; } || usage_error "--sizes: '$s' is not whole 64-byte lines of at least 1 KiB"
		[ "$b" -le "$max_bytes" ] || usage_error "--sizes: '$s' does not fit a guest of --memory $memory MB (allowed: up to $((max_bytes / 1048576)) MiB)"
		[ "$b" -gt "$prev" ] || usage_error "--sizes: '$s' is not larger than the level below it (sizes go from L1 up)"
		prev=$b
		model_bytes+=("$b")
	done
fi
if [ -n "$model" ]; then
	for b in "${model_bytes[@]}"; do
		[ -n "$(cal_jq "$model" 'cal_point($b) | .bytes' --argjson b "$b")" ] ||
			usage_error "--model '$model' has no working set of $b bytes (give --sizes with its sizes, one per native level: ${chase_levels[*]})"
	done
fi
load_form=$(cal_jq "$native" .params.load_form -r)
load_rate=$(cal_jq "$native" .params.load_rate -r)
[ -n "$(cal_jq "$native" 'cal_issuer($f) | .split.ns_per_op // empty' --arg f "$load_form")" ] ||
	usage_error "--native '$native' has no issuer figure for a split $load_form (its load form)"
size_list=$(IFS=,; echo "${model_bytes[*]}")
# The wake-up probes the native run has (none before slb-calibrate had
# them: the guest then runs none), at its interval.
wakeup_probes=$(cal_jq "$native" '[cal_wakeup | .probe] | join(",")' -r)
wakeup_interval=$(cal_jq "$native" '.wakeup.interval_us // empty' -r)
nprobes=0
[ -z "$wakeup_probes" ] || { IFS=, read -ra wp <<<"$wakeup_probes"; nprobes=${#wp[@]}; }
[ -n "$wakeup_duration" ] ||
	wakeup_duration=$(cal_jq "$native" '[.wakeup.duration_s // 0.1, 1] | min | tostring' -r)
plan_s=$(awk -v n=${#model_bytes[@]} -v r="$reps" -v d="$duration" -v i="$issuer_ms" -v p="$nprobes" -v w="$wakeup_duration" \
	'BEGIN { printf "%.2f", (n + 1) * 3 * r * d + 2 * r * i / 1000 + p * (3 * r + 1) * w }')
if [ -z "$model" ]; then
	plan="guest: 2 vCPUs, ${memory} MB, $(model_words), quantum $quantum_ns ns; slb-calibrate: arith +"
	plan+=" ${#model_bytes[@]} working sets ($size_list bytes) x 3 loads x $reps reps x $duration s, issuer $load_form"
	plan+=" x $reps reps x $issuer_ms ms"
	if [ "$nprobes" -gt 0 ]; then
		plan+=", wake-up $wakeup_probes x 3 loads x $reps reps x $wakeup_duration s every $wakeup_interval us"
	else
		plan+=", no wake-up probe (the native calibration has none)"
	fi
	plan+=": $plan_s s of virtual time (some minutes of emulation)"
else
	plan="model: $model ($(model_words)), no guest booted"
fi
plan+="; native: $native; levels ${chase_levels[*]}"
[ "$validate" = 0 ] || { say "plan: $plan"; exit 0; }
if [ -z "$model" ]; then
	[ -n "${SLB_INITRD:-}" ] && [ -f "$SLB_INITRD" ] ||
		usage_error "SLB_INITRD '${SLB_INITRD:-}' is not an initramfs (use make validate-model, or give --model FILE)"
	command -v "${SLB_QEMU:-qemu-system-x86_64}" >/dev/null ||
		usage_error "SLB_QEMU '${SLB_QEMU:-qemu-system-x86_64}' is not an executable (run 'make qemu')"
fi

begin_run_dir "$results" "$id" 'validate-*' "a validation"
tmp=$RUN_TMP
guest_pid= follow_pid=
abort() {
	trap '' INT TERM HUP
	[ -z "$guest_pid" ] || { kill -TERM "$guest_pid" 2>/dev/null; wait "$guest_pid" 2>/dev/null; }
	[ -z "$follow_pid" ] || kill "$follow_pid" 2>/dev/null
	rm -rf "$tmp"
	say "interrupted: nothing kept of $id"
	exit 130
}
trap abort INT TERM HUP
start=$(date +%s) date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
say "validating into $tmp; $plan"

if [ -z "$model" ]; then
	{
		wake_args="--wakeup none"
		[ "$nprobes" = 0 ] || wake_args="--wakeup $wakeup_probes --wakeup-interval $wakeup_interval --wakeup-duration $wakeup_duration"
		printf 'SLB_CAL_ARGS=%q\n' "--duration $duration --reps $reps --sizes $size_list --issuer-ms $issuer_ms --forms $load_form --load-form $load_form --load-rate $load_rate $wake_args --max-split-s 3600"
		echo '. "${SLB_JOBS:-/jobs}/calibrate.sh"'
	} >"$tmp/guest.job"
	# The emulation runs some 50 times slower than the virtual time (both
	# vCPUs busy), plus the boot.
	limit=$(awk -v p="$plan_s" 'BEGIN { printf "%d", 300 + 120 * p }')
	"$SLB_ROOT/bench/target/run-guest.sh" -o "$tmp/guest" -j "$tmp/guest.job" --smp 2 --memory "$memory" \
		--clock virtual $(bus_model_args) --quantum-ns "$quantum_ns" -t "$limit" \
		>"$tmp/guest.outcome" 2>"$tmp/guest.stderr" &
	guest_pid=$!
	say "booting the guest (run-guest.sh, watchdog $limit s)"
	# The tool's progress lines, as the guest's console shows them.
	tail -n +1 -F --pid="$guest_pid" "$tmp/guest/console.log" 2>/dev/null | grep --line-buffered -o 'slb-calibrate: .*' |
		while IFS= read -r line; do line=${line%$'\r'}; say "guest: ${line#slb-calibrate: }"; done &
	follow_pid=$!
	wait "$guest_pid"
	rc=$?
	guest_pid=
	wait "$follow_pid" 2>/dev/null
	follow_pid=
	[ "$rc" = 0 ] || die "the guest run ended '$(cat "$tmp/guest.outcome")' (kept in $tmp/guest; $(tail -n 1 "$tmp/guest.stderr"))"
	for f in calibration.json calibration.txt progress.log facts.txt; do
		mv "$tmp/guest/files/$f" "$tmp/model.$f" || die "the guest sent no $f (see $tmp/guest)"
	done
	rm -f "$tmp/guest.outcome" "$tmp/guest.stderr"
	model_src=model.calibration.json
	outcome=$tmp/guest/outcome.json
else
	cp "$model" "$tmp/model.calibration.json" || die "could not copy $model"
	model_src=$model
	outcome=/dev/null
fi
check_calibration "the guest's" "$tmp/model.calibration.json"
cp "$native" "$tmp/native.calibration.json" || die "could not copy $native"

# The comparison: one row per native level, the model's point of the same
# name (its working set from the list above), and the issuer.
jq -n -L "$SLB_ROOT/bench/lib" 'include "calibration";
	def est(f): cal_est(f) as [$v, $lo, $hi] | {value: $v, ci95: [$lo, $hi]};
	# ns the victim loses per split LOCK of the load: the share of its
	# time lost (1 - aligned/split) over the load'"'"'s split LOCKs per second.
	def lost: if (.load_ops_per_s.split // 0) > 0 and .split_over_aligned.ratio > 0
		then (1 - 1 / .split_over_aligned.ratio) / .load_ops_per_s.split * 1e9 else null end;
	def ratio($m; $n): if $n.value > 0 then $m.value / $n.value else null end;
	def cmp($m; $n): {model_over_native: ratio($m; $n),
		bounds: (if $n.ci95[0] > 0 and $n.ci95[1] > 0 then [$m.ci95[0] / $n.ci95[1], $m.ci95[1] / $n.ci95[0]] else null end),
		intervals_overlap: ($m.ci95[0] <= $n.ci95[1] and $n.ci95[0] <= $m.ci95[1])};
	$native[0] as $n | $model[0] as $m | ($outcome[0] // {}) as $o |
	{tool: "validate-model", schema: 1, run_id: $id, date: $date,
	 model: {source: $model_src, bus_lock_model: $bus_model, bus_lock_ns: $bus, bus_hold_ns: $hold,
	   bus_cache_kb: $cache_kb, bus_cache_ways: $cache_ways, quantum_ns: $quantum, clock: "virtual",
	   cpu_model: $m.machine.cpu_model, vcpus: ($o.smp // null), memory_mb: ($o.memory_mb // null),
	   guest_elapsed_s: ($o.elapsed_s // null), caches: $m.machine.caches, params: ($m.params | del(.load_order))},
	 native: {source: $native_src, cpu_model: $n.machine.cpu_model, hypervisor: $n.machine.hypervisor,
	   kernel: $n.machine.kernel, caches: $n.machine.caches, params: ($n.params | del(.load_order))},
	 load_form: $n.params.load_form, load_rate: $n.params.load_rate,
	 levels: [$n.levels[] | . as $l | ($l.bytes // null) as $nb |
	   (if $l.task == "arith" then null else $sizes[[$n.levels[] | select(.task == "chase") | .level] | index($l.level)] end) as $mb |
	   ($n | cal_point($nb) | .split_over_aligned | est(.ratio)) as $nv |
	   ($m | cal_point($mb) | .split_over_aligned | est(.ratio)) as $mv |
	   {level: $l.level, task: $l.task, native_bytes: $nb, model_bytes: $mb, shrunk: ($mb != $nb),
	    native: $nv, model: $mv} + cmp($mv; $nv) +
	   {victim_ns_lost_per_split_lock: {native: ($n | cal_point($nb) | lost), model: ($m | cal_point($mb) | lost)}}],
	 issuer: (($n | cal_issuer($n.params.load_form).split | est(.ns_per_op)) as $ni |
	   ($m | cal_issuer($n.params.load_form).split | est(.ns_per_op)) as $mi |
	   {form: $n.params.load_form, native_ns_per_split_lock: $ni, model_ns_per_split_lock: $mi} + cmp($mi; $ni) +
	   {model_over_bus_lock_ns: (if $bus > 0 then $mi.value / $bus else null end)}),
	 wakeup: [$n | cal_wakeup_rows($m) | {probe, stat, native_ns, model_ns, native: (.native as [$v, $lo, $hi] | {value: $v, ci95: [$lo, $hi]}),
	   model: (.model as [$v, $lo, $hi] | {value: $v, ci95: [$lo, $hi]})} | . + cmp(.model; .native)],
	 wakeup_interval_us: {native: ($n.wakeup.interval_us // null), model: ($m.wakeup.interval_us // null)},
	 notes: ["levels and working sets are the native run'"'"'s; the model ran the same sizes (shrunk to fit its RAM where shrunk is true); TCG has no cache model, and the virtual clock charges 1 ns per instruction wherever its data is",
	   "victim ns lost per split lock: the share of the victim'"'"'s time the split load took (1 - aligned/split) over the load'"'"'s split LOCKs per second; the model charges bus-lock-ns",
	   "bounds: the quotients of the two 95 % intervals'"'"' ends (conservative; not an interval of their own)",
	   (if ($n | [cal_wakeup] | length) == 0 then "wake-up probes: none (the native calibration has none: made with --wakeup none or before slb-calibrate had them)"
	    elif ($m | [cal_wakeup] | length) == 0 then "wake-up probes: none (the model calibration has none)"
	    else "wake-up probes: split/aligned of each rep'"'"'s p50, p99 and max ns late (Hodges-Lehmann over reps); the model ran \($m.wakeup.duration_s) s per probe, load and rep (virtual), the native \($n.wakeup.duration_s) s: a max over fewer wake-ups is lower" end)]}' \
	--slurpfile native "$tmp/native.calibration.json" --slurpfile model "$tmp/model.calibration.json" \
	--slurpfile outcome "$outcome" --arg id "$id" --arg date "$date" --arg native_src "${native#"$SLB_ROOT"/}" \
	--arg model_src "${model_src#"$SLB_ROOT"/}" --argjson bus "$bus_lock_ns" --argjson quantum "$quantum_ns" \
	--arg bus_model "$bus_model" --argjson hold "$bus_hold_ns" --argjson cache_kb "$bus_cache_kb" --argjson cache_ways "$bus_cache_ways" \
	--argjson sizes "[$size_list]" >"$tmp/validation.json" 2>"$tmp/jq.err" ||
	die "could not compare the calibrations: $(cat "$tmp/jq.err")"
rm -f "$tmp/jq.err"

# The tables: jq gives the numbers, awk the layout (text and Markdown).
rows() {
	jq -r '(.levels[] | ["level", .level, (.native_bytes // 0), (.model_bytes // 0),
		.native.value, .native.ci95[], .model.value, .model.ci95[], (.model_over_native // "nan"), (.bounds // ["nan", "nan"])[],
		(if .intervals_overlap then "yes" else "no" end),
		(.victim_ns_lost_per_split_lock | .native // "nan", .model // "nan")]),
	 (.issuer | ["issuer", .form, 0, 0, .native_ns_per_split_lock.value, .native_ns_per_split_lock.ci95[],
		.model_ns_per_split_lock.value, .model_ns_per_split_lock.ci95[], (.model_over_native // "nan"), (.bounds // ["nan", "nan"])[],
		(.model_over_bus_lock_ns // "nan")]),
	 (.wakeup[] | ["wakeup", .probe, .stat, 0, .native.value, .native.ci95[], .model.value, .model.ci95[],
		(.model_over_native // "nan"), (.bounds // ["nan", "nan"])[], (if .intervals_overlap then "yes" else "no" end),
		(.native_ns | .none, .aligned, .split), (.model_ns | .none, .aligned, .split) | . // "nan"])
	 | map(tostring) | join("\t")' "$tmp/validation.json"
}
table() {
	rows | awk -F'\t' -v md="$1" -v bus="$bus_lock_ns" '
	# 3 significant digits, no exponent: 0.0179, 1.02, 57300
	function g(x, p, a) { if (x == "nan") return "-"; a = x < 0 ? -x : x; if (a < 999.5) return sprintf("%.3g", x)
		p = 10 ^ (int(log(a) / log(10)) - 2); return sprintf("%.0f", (x < 0 ? -1 : 1) * int(a / p + 0.5) * p) }
	function est(v, lo, hi, p) { return p g(v) " [" g(lo) "-" g(hi) "]" }
	function size(b, u, i) { if (b == 0) return "-"; split("B KiB MiB GiB", u, " ");
		for (i = 1; b >= 1024 && i < 4; i++) b /= 1024; return sprintf("%g %s", b, u[i]) }
	$1 == "level" {
		if (md) printf "| %s | %s | %s | %s | %s | x%s |\n", $2, size($3), size($4), est($5, $6, $7, "x"), est($8, $9, $10, "x"), g($11)
		else printf "%-6s %-9s %-9s %-24s %-24s x%-8s %-18s %-8s %s / %s\n", $2, size($3), size($4), est($5, $6, $7, "x"),
			est($8, $9, $10, "x"), g($11), "[" g($12) "-" g($13) "]", $14, g($15), g($16)
	}
	$1 == "issuer" {
		if (md) printf "| issuer: ns per split LOCK %s | | | %s | %s | x%s |\n", $2, est($5, $6, $7, ""), est($8, $9, $10, ""), g($11)
		else printf "\nIssuer: ns per split LOCK %s on the load CPU\n  native %s, model %s: model/native x%s [%s-%s]; model/bus-lock-ns (%s) x%s\n",
			$2, est($5, $6, $7, ""), est($8, $9, $10, ""), g($11), g($12), g($13), bus, g($14)
	}
	$1 == "wakeup" {
		if (md) printf "| wake-up %s %s | | | %s | %s | x%s |\n", $2, $3, est($5, $6, $7, "x"), est($8, $9, $10, "x"), g($11)
		else {
			if (!wk++) printf "\nWake-up: how late a thread on the victim CPU is woken (timer: clock_nanosleep, as cyclictest; futex: from the load CPU),\nsplit/aligned of each rep'"'"'s statistic\n%-5s %-4s %-24s %-24s %-9s %-18s %-8s %s\n", \
				"probe", "stat", "native", "model", "model/nat", "bounds", "overlap", "ns late none / aligned / split: native; model"
			printf "%-5s %-4s %-24s %-24s x%-8s %-18s %-8s %s / %s / %s; %s / %s / %s\n", $2, $3, est($5, $6, $7, "x"),
				est($8, $9, $10, "x"), g($11), "[" g($12) "-" g($13) "]", $14, g($15), g($16), g($17), g($18), g($19), g($20)
		}
	}'
}
{
	jq -r '"Validation \(.run_id): the bus-lock model \(.model.bus_lock_model // "all") (QEMU TCG, virtual clock, bus-lock-ns \(.model.bus_lock_ns), hold \(.model.bus_hold_ns // 0) ns, cache \(.model.bus_cache_kb // 0) KiB, quantum \(.model.quantum_ns) ns) against a native calibration",
		"model:  \(.model.source): \(.model.cpu_model) guest, victim vCPU \(.model.params.victim_cpu), load vCPU \(.model.params.load_cpu); \(.model.params.reps) reps x \(.model.params.duration_s) s (virtual)",
		"native: \(.native.source): \(.native.cpu_model)\(if .native.hypervisor then " (a VM)" else "" end), victim CPU \(.native.params.victim_cpu), load CPU \(.native.params.load_cpu); \(.native.params.reps) reps x \(.native.params.duration_s) s",
		"load: LOCK \(.load_form) on the load CPU, \(if .load_rate == 0 then "flat out" else "\(.load_rate) ops/s" end)",
		"",
		"Victim slowdown under a split load (split/aligned: Hodges-Lehmann over reps, 95 % intervals);",
		"levels and working sets are the native run'"'"'s (the model ran the same sizes, shrunk to fit its RAM where they differ)"' \
		"$tmp/validation.json"
	printf '%-6s %-9s %-9s %-24s %-24s %-9s %-18s %-8s %s\n' level "native" "model" "native" "model" model/nat "bounds" "overlap" \
		"victim ns lost per split lock: native / model"
	table 0
	echo
	jq -r '.notes[] | "note: \(.)"' "$tmp/validation.json"
} >"$tmp/validation.txt"
{
	echo "| level | native working set | model working set | native split/aligned | model split/aligned | model/native |"
	echo "|---|---|---|---|---|---|"
	table 1
} >"$tmp/validation.md"

# The plot: split / aligned against the working set, model and native.
cal_jq "$tmp/native.calibration.json" cal_slowdown_dat -r >"$tmp/native.dat" || die "could not write native.dat"
cal_jq "$tmp/model.calibration.json" cal_slowdown_dat -r >"$tmp/model.dat" || die "could not write model.dat"
vars=$(jq -r '"run=\"\(.run_id)\"; native_cpu=\"\(.native.cpu_model | gsub("\""; ""))\(if .native.hypervisor then ", a VM" else "" end)\"; " +
	"bus_lock_ns=\(.model.bus_lock_ns); load_form=\"\(.load_form)\"; " +
	"arith_native=\(.levels[0].native.value); arith_model=\(.levels[0].model.value); " +
	"levels=\"\([.levels[] | select(.task == "chase") | .level] | join(" "))\"; " +
	"level_bytes=\"\([.levels[] | select(.task == "chase") | .native_bytes] | map(tostring) | join(" "))\""' \
	"$tmp/validation.json") || die "could not read validation.json"
draw_plot validate-slowdown.gp "$tmp/slowdown" "nativefile='$tmp/native.dat'; modelfile='$tmp/model.dat'; $vars" "$tmp/gnuplot.log"
[ -s "$tmp/gnuplot.log" ] || rm -f "$tmp/gnuplot.log"
end_run_dir "$tmp" "$results/$id"
say "validation $id complete in $(($(date +%s) - start)) s: $results/$id"
cat "$results/$id/validation.txt"
