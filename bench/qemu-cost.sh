#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (prints, asserts nothing): what the split-lock emulation costs
# when unused, and what an emulated split lock costs when it runs.
#  1. patched QEMU vs the same build without patch/qemu (the fair
#     reference: same source, configuration and compiler) and vs Debian's
#     stock qemu-system-x86_64, interleaved (A B C A B C): guest seconds to
#     init, and aligned LOCK ADDs per second in a 3 s guest loop (detection
#     off);
#  2. in the patched guest, ns per LOCK ADD split vs aligned vs inline
#     (slb-load --calibrate), the emulated bus-lock cost.
# Usage: qemu-cost.sh [REPS]   (SLB_QEMU, SLB_QEMU_UNPATCHED, SLB_INITRD
# from make bench-qemu)
set -uo pipefail
SLB_PROG=qemu-cost
. "$(dirname "$0")/../scripts/lib.sh"
reps=${1:-3}
case $reps in '' | *[!0-9]* | 0) usage_error "REPS '$reps' is not a whole number from 1" ;; esac
patched=${SLB_QEMU:?set SLB_QEMU (make bench-qemu)}
unpatched=${SLB_QEMU_UNPATCHED:?set SLB_QEMU_UNPATCHED (make bench-qemu)}
stock=/usr/bin/qemu-system-x86_64
[ -x "$stock" ] || die "$stock missing: run 'make deps'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/loop.sh" <<'JOB'
slb-load -m aligned -d 3 --json >load.json
JOB
cat >"$tmp/calib.sh" <<'JOB'
slb-load --calibrate 20000 --json >calib4.json
slb-load --calibrate 20000 -s 8 -o xadd --json >calib8.json
JOB
run() { # run NAME QEMU JOB
	"$SLB_ROOT/bench/run-guest.sh" --clock wall --qemu "$2" -o "$tmp/$1" -j "$3" -a split_lock_detect=off -t 300 >/dev/null ||
		die "guest run $1 failed: $(cat "$tmp/$1/outcome.json" 2>/dev/null)"
}
init_s() { # host-independent: guest clock at "Run /init"
	grep -m1 -o '^\[ *[0-9.]*\] Run /init' "$1/console.log" | grep -o '[0-9][0-9.]*' | head -n 1
}
for r in $(seq 1 "$reps"); do
	for q in patched unpatched stock; do
		case $q in
		patched) bin=$patched ;;
		unpatched) bin=$unpatched ;;
		*) bin=$stock ;;
		esac
		say "rep $r/$reps: $q"
		run "$q$r" "$bin" "$tmp/loop.sh"
		echo "$q $(jq .elapsed_s "$tmp/$q$r/outcome.json") $(init_s "$tmp/$q$r") $(jq .ops_per_s "$tmp/$q$r/files/load.json")" >>"$tmp/rows"
	done
done
say "calibrating split vs aligned vs inline in the patched guest"
run calib "$patched" "$tmp/calib.sh"
awk -v reps="$reps" '
	{
		n[$1]++; wall[$1] += $2; init[$1] += $3; ops[$1] += $4
		if (!($1 in lo) || $4 < lo[$1]) lo[$1] = $4
		if ($4 > hi[$1]) hi[$1] = $4
	}
	END {
		printf "emulator cost when split-lock detection is unused (%d reps each, interleaved):\n", reps
		printf "  %-10s %10s %14s %18s %26s\n", "qemu", "run wall s", "boot-to-init s", "aligned LOCK ADD/s", "(min-max over reps)"
		for (q in n) printf "  %-10s %10.2f %14.3f %18.0f %12.0f-%-12.0f\n", q, wall[q] / n[q], init[q] / n[q], ops[q] / n[q], lo[q], hi[q]
		for (i = 0; i < 2; i++) {
			ref = i ? "stock" : "unpatched"
			printf "  patched/%s: boot-to-init %.3f, aligned atomics throughput %.3f%s\n", ref,
				(init["patched"] / n["patched"]) / (init[ref] / n[ref]),
				(ops["patched"] / n["patched"]) / (ops[ref] / n[ref]),
				i ? " (a different build: configuration and compiler flags differ too)" : " (the patches alone; 1.000 = no cost, target within 2%)"
		}
	}' "$tmp/rows"
for f in calib4 calib8; do
	jq -r '"emulated cost of one LOCK \(.op) size \(.size): split \(.ns_per_op.split) ns, aligned \(.ns_per_op.aligned) ns, inline \(.ns_per_op.inline) ns; split/aligned x\(.split_over_aligned)"' "$tmp/calib/files/$f.json"
done
