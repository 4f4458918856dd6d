#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How this directory was made: the offender swap of issue 21 item 3, with
# the kernel's default timer migration (tm1) and with
# kernel.timer_migration=0 (tm0). A 3-vCPU guest (vCPU 2 isolated,
# cyclictest on it), one split-lock offender pinned to vCPU 0 or 1
# (SLB_LOAD_CPUS), seeds 1-3, 5 s each, virtual clock, calibrated model.
# From the repository root after make all kernel qemu initramfs:
#   OUT=<dir> <this script> "$(cat build/initramfs.path)"
# Prints one line per run (results.txt); exit 0.
set -u
. scripts/lib.sh
. rt-config/defaults.conf
bus_model_load calibrated "$CALIBRATION_DEFAULT"
SLB_QEMU=$(scripts/build-qemu.sh --path)
export SLB_QEMU
for tm in 1 0; do for c in 0 1; do
	j=$OUT/job-$tm-$c
	printf 'SLB_DURATION=5 SLB_WARMUP=1 SLB_INTERVAL=1000 SLB_LOAD_RATE=0\nSLB_LOAD=slb-load:split SLB_SYSCTLS=%s\nSLB_LOAD_CPUS=%s\n. /jobs/study.sh\n' \
		"$([ "$tm" = 0 ] && echo kernel.timer_migration=0)" "$c" >"$j"
	for s in 1 2 3; do
		d=$OUT/tm$tm-c$c-s$s
		rm -rf "$d"
		bench/run-guest.sh -o "$d" -j "$j" -s 3 --seed "$s" --clock virtual $(bus_model_args) --initrd "$1" \
			-a split_lock_detect=off >/dev/null 2>&1
		p=$(build/host/slb-hist --json "$d/files/hist.txt" 2>/dev/null |
			jq -c ".histograms[0] | {avg: .avg_us, p99: .p99_us, p999: .p999_us, max: .max_us}" 2>/dev/null)
		echo "tm=$tm offender=$c seed=$s $(jq -r .outcome "$d/outcome.json") $p"
	done
done; done
