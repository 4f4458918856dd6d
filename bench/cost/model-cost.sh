#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (prints, asserts nothing): what the virtual mode's bus-lock
# model costs in host time. The same guest work, split-off's study job
# (a split-lock loop on the housekeeping vCPU, cyclictest on the isolated
# one, 3 s of virtual time after 1 s of warm-up, seed 1: deterministic, so
# every run does exactly the same guest work), interleaved rep by rep:
#   model   SLB_QEMU with bus-lock-ns 1000 (the all-stall model)
#   calib   SLB_QEMU with the calibrated model of the committed
#           calibration (a per-vCPU cache looked up at every data access,
#           fetch and page walk)
#   noskip  calib with the lookups that change nothing made all the same
#           (x-bus-skip=off: patch/qemu 0023's skip undone, its figures
#           the same; each lookup it would skip is also checked, which
#           costs a little on top)
#   free    SLB_QEMU with bus-lock-ns 0 (split locks cost nothing)
#   base    SLB_QEMU_BASE with bus-lock-ns 1000, if set: a build of an
#           earlier patch/qemu, to compare two versions of the model
# The measure is the emulator's host CPU time for the whole run (user +
# system, boot included); each ratio comes with its 95 % interval over the
# reps (bench/host/slb-ratio, Hodges-Lehmann on logs).
# Usage: model-cost.sh [REPS]   (default 6, 4 to 100; SLB_QEMU, SLB_INITRD
# and optionally SLB_QEMU_BASE, from make bench-model)
# Exit status: 0 done, 1 a guest run failed, 2 bad input.
set -uo pipefail
SLB_PROG=model-cost
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/bench/lib/job.sh"
. "$SLB_ROOT/bench/cost/lib.sh"
. "$SLB_ROOT/rt-config/defaults.conf"
cost_bench_init "${1:-}" "make bench-model"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
write_study_job 3 1 1000 0 slb-load:split "" >"$tmp/job.sh"

bus_model_load calibrated "$SLB_ROOT/$CALIBRATION_DEFAULT"
variants=(model calib noskip free)
[ -z "$base" ] || variants+=(base)
for r in $(seq 1 "$reps"); do
	for v in "${variants[@]}"; do
		case $v in
		model) bin=$qemu args=(--bus-lock-ns 1000) ;;
		calib) bin=$qemu; read -ra args <<<"$(bus_model_args)" ;;
		noskip) bin=$qemu; read -ra args <<<"$(bus_model_args)"; args+=(--qemu-arg -global --qemu-arg x86_64-cpu.x-bus-skip=off) ;;
		free) bin=$qemu args=(--bus-lock-ns 0) ;;
		*) bin=$base args=(--bus-lock-ns 1000) ;;
		esac
		cost_bench_run "$v" "$r" "$tmp" --clock virtual "${args[@]}" --qemu "$bin" \
			-j "$tmp/job.sh" -a split_lock_detect=off -t 900
	done
done
echo "host CPU time of one split-off guest run (3 s of virtual time, boot included), $reps reps interleaved:"
cost_bench_means "$tmp/cpu"
echo "ratios (1.000 = the same host time):"
printf '  %s\n' "$("$RATIO" model free "$tmp/cpu")"
printf '  %s\n' "$("$RATIO" calib model "$tmp/cpu")"
printf '  %s\n' "$("$RATIO" calib noskip "$tmp/cpu")"
printf '  %s\n' "$("$RATIO" calib free "$tmp/cpu")"
[ -z "$base" ] || printf '  %s\n' "$("$RATIO" model base "$tmp/cpu")"
