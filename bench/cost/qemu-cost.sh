#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (prints, asserts nothing): what the split-lock emulation costs
# when unused and when on, and what an emulated split lock costs.
#  1. The same guest work (boot, then 100 million aligned LOCK ADDs, no
#     split lock) under four emulators, interleaved (A B C D A B C D ...):
#     the patched QEMU with detection off and with it on (fatal: every
#     locked access is checked, none traps), the same build without
#     patch/qemu (the fair reference: same source, configuration and
#     compiler) and Debian's stock qemu-system-x86_64. The measure is the
#     emulator's host CPU time for the whole run (user + system), which a
#     fixed amount of guest work makes comparable; each ratio comes with
#     its 95 % interval over the reps (bench/host/slb-ratio, Hodges-Lehmann
#     on logs), so a 2 % cost is resolved when the interval is narrower
#     than that. Guest ops per second are printed beside it.
#  2. In the patched guest, ns per LOCK ADD split vs aligned vs inline
#     (slb-load --calibrate), the emulated bus-lock cost.
# Usage: qemu-cost.sh [REPS]   (default 8; SLB_QEMU, SLB_QEMU_UNPATCHED,
# SLB_INITRD from make bench-qemu)
set -uo pipefail
SLB_PROG=qemu-cost
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/bench/cost/lib.sh"
reps=${1:-8}
case $reps in '' | *[!0-9]*) usage_error "REPS '$reps' is not a whole number from 4 to 100" ;; esac
[ "$reps" -ge 4 ] && [ "$reps" -le 100 ] || usage_error "REPS $reps is out of range (allowed: 4 to 100: an interval needs 4 runs a side)"
patched=${SLB_QEMU:?set SLB_QEMU (make bench-qemu)}
unpatched=${SLB_QEMU_UNPATCHED:?set SLB_QEMU_UNPATCHED (make bench-qemu)}
stock=/usr/bin/qemu-system-x86_64
[ -x "$stock" ] || die "$stock missing: run 'make deps'"
RATIO=$SLB_ROOT/build/host/slb-ratio
[ -x "$RATIO" ] || die "$RATIO missing: run 'make'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/loop.sh" <<'JOB'
slb-load -m aligned -n 100000000 -d 3600 --json >load.json
JOB
cat >"$tmp/calib.sh" <<'JOB'
slb-load --calibrate 20000 --json >calib4.json
slb-load --calibrate 20000 -s 8 -o xadd --json >calib8.json
JOB
run() { # run NAME QEMU JOB [KERNEL-OPTION]: one guest; its CPU time in NAME.cpu
	cpu_seconds "$SLB_ROOT/bench/target/run-guest.sh" --clock wall --qemu "$2" -o "$tmp/$1" -j "$3" \
		-a "${4:-split_lock_detect=off}" -t 600 >"$tmp/$1.cpu" ||
		die "guest run $1 failed: $(cat "$tmp/$1/outcome.json" 2>/dev/null)"
}
for r in $(seq 1 "$reps"); do
	for q in patched-off patched-on unpatched stock; do
		case $q in
		patched-off) bin=$patched opt= ;;
		patched-on) bin=$patched opt=split_lock_detect=fatal ;;
		unpatched) bin=$unpatched opt= ;;
		*) bin=$stock opt= ;;
		esac
		say "rep $r/$reps: $q"
		run "$q$r" "$bin" "$tmp/loop.sh" "$opt"
		echo "$q $(cat "$tmp/$q$r.cpu")" >>"$tmp/cpu"
		echo "$q $(jq .ops_per_s "$tmp/$q$r/files/load.json")" >>"$tmp/ops"
	done
done
echo "emulator cost, the same guest work (boot + 1e8 aligned LOCK ADDs, no split lock), $reps reps interleaved:"
awk '{ n[$1]++; s[$1] += $2 } END { for (q in n) printf "  %-12s host CPU %7.2f s (mean)\n", q, s[q] / n[q] }' "$tmp/cpu" | sort
echo "host CPU time ratios (1.000 = no cost; the 2 % target is resolved where the interval is narrower):"
for pair in "patched-off unpatched" "patched-on patched-off" "patched-off stock"; do
	# shellcheck disable=SC2086
	printf '  %s\n' "$("$RATIO" $pair "$tmp/cpu")"
done
echo "guest aligned LOCK ADDs per second, ratios:"
for pair in "patched-off unpatched" "patched-on patched-off"; do
	# shellcheck disable=SC2086
	printf '  %s\n' "$("$RATIO" $pair "$tmp/ops")"
done
say "calibrating split vs aligned vs inline in the patched guest"
run calib "$patched" "$tmp/calib.sh"
for f in calib4 calib8; do
	jq -r '"emulated cost of one LOCK \(.op) size \(.size): split \(.ns_per_op.split) ns, aligned \(.ns_per_op.aligned) ns, inline \(.ns_per_op.inline) ns; split/aligned x\(.split_over_aligned)"' "$tmp/calib/files/$f.json"
done
