#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print a study run's manifest.json: what ran, on what, with which inputs
# (run id, date, host CPU, kernel and QEMU versions and input hashes, patch
# hashes, guest command lines, parameters).
#   manifest.sh RUNDIR ID DURATION REPS VCPUS INTERVAL WARMUP
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1 id=$2 duration=$3 reps=$4 vcpus=$5 interval=$6 warmup=$7
kdir=$("$SLB_ROOT/scripts/build-kernel.sh" --path)
qemu=${SLB_QEMU:-qemu-system-x86_64}
hashes() { # hashes DIR: {"file": "sha256", ...} over the series
	local first=1 p
	printf '{'
	for p in $(series_files "$1"); do
		[ $first = 1 ] || printf ', '
		first=0
		printf '"%s": "%s"' "$(basename "$p")" "$(sha256sum "$p" | cut -c1-16)"
	done
	printf '}'
}
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
cat <<JSON
{
  "run_id": "$(esc "$id")",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "emulated": true,
  "note": "latencies are QEMU TCG emulated time: compare runs as ratios, not as hardware microseconds",
  "host": {"cpu": "$(esc "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)")", "cores": $(nproc), "kernel": "$(esc "$(uname -r)")"},
  "kernel": {"package": "linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)", "cache_dir": "$(esc "$kdir")",
             "config_sha256": "$(sha256sum "$kdir/build/.config" | cut -c1-16)", "patches": $(hashes "$SLB_ROOT/patch/linux")},
  "qemu": {"binary": "$(esc "$qemu")", "version": "$(esc "$("$qemu" --version | head -n 1)")", "patches": $(hashes "$SLB_ROOT/patch/qemu"),
           "cpu": "$(esc "${SLB_CPU:-Snowridge,-hypervisor}")"},
  "guest_cmdline_base": "$(esc "$("$SLB_ROOT/rt-config/guest-cmdline.sh" "$vcpus")")",
  "params": {"duration_s": $duration, "reps": $reps, "vcpus": $vcpus, "interval_us": $interval, "warmup_s": $warmup,
             "scenarios": [$(sed 's/.*/"&"/' "$dir/scenarios.list" | paste -sd, -)]}
}
JSON
