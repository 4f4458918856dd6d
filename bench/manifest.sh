#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print a study run's manifest.json: what ran, on what, with which inputs
# (run id, date, digest of the tree's run inputs, host CPU, kernel and QEMU
# versions and input hashes, patch hashes, guest command lines, clock mode,
# parameters). jq writes it, so
# every string is escaped.
#   manifest.sh RUNDIR ID KEY=VALUE...   (numeric parameters: duration_s,
#   reps, vcpus, interval_us, warmup_s, jobs, bus_lock_ns, quantum_ns;
#   strings: clock, cpu)
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
dir=$1 id=$2
shift 2
kdir=$("$SLB_ROOT/scripts/build-kernel.sh" --path)
qemu=${SLB_QEMU:-qemu-system-x86_64}
# hashes DIR: {"file": "sha256 prefix", ...} over the series
hashes() {
	local p
	for p in $(series_files "$1"); do
		jq -n --arg k "$(basename "$p")" --arg v "$(sha256sum "$p" | cut -c1-16)" '{($k): $v}'
	done | jq -s 'add // {}'
}
# params KEY=VALUE...: one object; numbers stay numbers
params() {
	local kv
	for kv in "$@"; do
		jq -n --arg k "${kv%%=*}" --arg v "${kv#*=}" '{($k): ($v | tonumber? // $v)}'
	done | jq -s 'add // {}'
}
jq -n --arg id "$id" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--arg host_cpu "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" \
	--argjson cores "$(nproc)" --arg host_kernel "$(uname -r)" \
	--arg kpkg "linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)" \
	--arg kdir "$kdir" --arg kconfig "$(sha256sum "$kdir/build/.config" | cut -c1-16)" \
	--argjson kpatches "$(hashes "$SLB_ROOT/patch/linux")" \
	--arg qemu "$qemu" --arg qver "$("$qemu" --version | head -n 1)" \
	--argjson qpatches "$(hashes "$SLB_ROOT/patch/qemu")" \
	--arg cmdline "$("$SLB_ROOT/rt-config/guest-cmdline.sh" "$(params "$@" | jq -r '.vcpus // 2')")" \
	--argjson params "$(params "$@")" --arg inputs "$(run_inputs_digest)" \
	--argjson scenarios "$(jq -R . "$dir/scenarios.list" | jq -s .)" '
{
  run_id: $id, date: $date, emulated: true, inputs_digest: $inputs,
  note: (if $params.clock == "virtual"
    then "latencies are virtual time of a QEMU TCG guest (icount, 1 instruction = 1 ns, lock-step vCPUs, modelled bus-lock cost): deterministic, compare runs as ratios, not as hardware microseconds"
    else "latencies are QEMU TCG emulated wall-clock time: compare runs as ratios, not as hardware microseconds" end),
  host: {cpu: $host_cpu, cores: $cores, kernel: $host_kernel},
  kernel: {package: $kpkg, cache_dir: $kdir, config_sha256: $kconfig, patches: $kpatches},
  qemu: {binary: $qemu, version: $qver, patches: $qpatches, cpu: ($params.cpu // "")},
  guest_cmdline_base: $cmdline,
  params: ($params + {scenarios: $scenarios})
}'
