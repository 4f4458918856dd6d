#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (prints, asserts nothing): what one guest boot costs in host
# time, the part every test boot and every study rep pays before its work.
# The guest boots in the virtual mode (the default 10 us lock-step
# quantum), runs an empty job and powers off: deterministic, so every run
# does the same guest work. Variants, interleaved rep by rep:
#   now    SLB_QEMU and SLB_INITRD, started from the guest booted once
#          and kept (--snapshot on, bench/target/snapshot.sh; kept before
#          the first rep), CPUID giving the TSC and APIC timer rates
#   boot   the same guest booted as a study rep boots it (--snapshot off,
#          the default): guest RAM in a memfd; the variants below boot too
#   tests  the image's base (scripts/build-initramfs.sh), as the tests'
#          guests boot it: without stress-ng, 14 of 44 MB to unpack
#   thp    guest RAM anonymous (--ram anon: QEMU asks the host for
#          transparent huge pages, each cleared in full when first touched)
#   calib  --tsc-crystal off: the guest measures its APIC timer, 100 ms of
#          emulated time (patch/qemu 0014)
#   base   SLB_QEMU_BASE, if set, --tsc-crystal off (a QEMU without 0014):
#          another build, such as one of an earlier patch/qemu (before
#          0012-0013 a vCPU left the execution loop at every PAUSE)
# The measure is run-guest.sh's host CPU time for the whole boot (user +
# system, QEMU and the runner); each ratio comes with its 95 % interval
# over the reps (bench/host/slb-ratio, Hodges-Lehmann on logs).
# Usage: boot-cost.sh [REPS]   (default 6, 4 to 100; SLB_QEMU, SLB_INITRD
# and optionally SLB_QEMU_BASE, from make bench-boot)
# Exit status: 0 done, 1 a guest run failed, 2 bad input.
set -uo pipefail
SLB_PROG=boot-cost
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"
. "$SLB_ROOT/bench/cost/lib.sh"
cost_bench_init "${1:-}" "make bench-boot"
[ -f "$(initrd_base "${SLB_INITRD:-}")" ] ||
	usage_error "SLB_INITRD '${SLB_INITRD:-}' has no base image beside it (run 'make initramfs'; make bench-boot sets it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '. /lib/slb-lib.sh' >"$tmp/job.sh"

variants=(now boot tests thp calib)
[ -z "$base" ] || variants+=(base)
"$SLB_ROOT/bench/target/run-guest.sh" --snapshot on --clock virtual --qemu "$qemu" -j "$tmp/job.sh" -t 300 -o "$tmp/keep" >/dev/null ||
	die "the guest to keep did not run (see $tmp/keep)"
for r in $(seq 1 "$reps"); do
	for v in "${variants[@]}"; do
		case $v in
		now) bin=$qemu args=(--snapshot on) ;;
		boot) bin=$qemu args=(--snapshot off) ;;
		tests) bin=$qemu args=(--snapshot off --initrd "$(initrd_base "$SLB_INITRD")") ;;
		thp) bin=$qemu args=(--snapshot off --ram anon) ;;
		calib) bin=$qemu args=(--snapshot off --tsc-crystal off) ;;
		*) bin=$base args=(--snapshot off --tsc-crystal off) ;;
		esac
		cost_bench_run "$v" "$r" "$tmp" --clock virtual ${args[@]+"${args[@]}"} --qemu "$bin" -j "$tmp/job.sh" -t 300
	done
done
echo "host CPU time of one guest boot (an empty job, virtual mode; runner included), $reps reps interleaved:"
cost_bench_means "$tmp/cpu"
echo "ratios (1.000 = the same host time):"
printf '  %s\n' "$("$RATIO" now boot "$tmp/cpu")"
for v in tests thp calib; do printf '  %s\n' "$("$RATIO" "$v" boot "$tmp/cpu")"; done
[ -z "$base" ] || printf '  %s\n' "$("$RATIO" boot base "$tmp/cpu")"
