#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print a study run's manifest.json: what ran, on what, with which inputs
# (run id, date, digest of the tree's run inputs, host CPU, kernel and QEMU
# versions and input hashes, patch hashes, guest command lines, clock mode,
# parameters). jq writes it, so every string is escaped. A native run
# (RUNDIR/target.txt, the target's facts from bench/target/detect.sh and
# native.sh) records the target instead of kernel and emulator: its
# identity, CPU, kernel, command line, split-lock detection state and the
# scenarios skipped there, with why (RUNDIR/skipped.txt).
#   manifest.sh RUNDIR ID KEY=VALUE...   (numeric parameters: duration_s,
#   reps, vcpus, interval_us, warmup_s, jobs, bus_lock_ns, bus_hold_ns,
#   bus_cache_kb, bus_cache_ways, quantum_ns, calibrated_cost_ns and
#   calibrated_hold_ns (a calibration scaled to bus_lock_ns: its own),
#   load_rate, measure_cpu, trace (1: reps traced); strings: clock, cpu,
#   target, load_cpus, bus_lock_model, calibration)
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"
dir=$1 id=$2
shift 2
# params KEY=VALUE...: one object; numbers stay numbers
# (one jq for all: a jq per pair cost a study about 1 s of CPU)
params() {
	jq -n '[$ARGS.positional[] | split("=") as $p | ($p[0] // "") as $k
		| {($k): (if ($p | length) > 1 then $p[1:] | join("=") else $k end | tonumber? // .)}] | add // {}' --args -- "$@"
}
if [ -f "$dir/target.txt" ]; then
	facts=$(jq -R 'capture("^(?<k>[a-z_0-9]+)=(?<v>.*)$") | {(.k): .v}' "$dir/target.txt" | jq -s 'add // {}')
	skipped=$( [ -f "$dir/skipped.txt" ] && jq -R 'split("\t") | {scenario: .[0], reason: .[1], next: .[2]}' "$dir/skipped.txt" | jq -s . || echo '[]')
	jq -n --arg id "$id" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg host_cpu "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" \
		--argjson cores "$(nproc)" --arg host_kernel "$(uname -r)" --arg host_name "$(uname -n)" \
		--argjson f "$facts" --argjson skipped "$skipped" --argjson params "$(params "$@")" \
		--argjson scenarios "$(jq -R . "$dir/scenarios.list" | jq -s .)" '
	{
	  run_id: $id, date: $date, emulated: false,
	  simulated_facts: ($f.simulated // null),
	  note: ("latencies are real time on \($f.hostname)'"'"'s running kernel (\($f.cpu_model)), no emulator"
	    + (if $f.flag_hypervisor == "yes" then "; a virtual machine (hypervisor flag): real hardware through a hypervisor, whose scheduling of vCPUs is in the figures" else "" end)),
	  target: {kind: (if ($f.target | startswith("ssh:")) then "ssh" else "native" end), name: $f.target,
	    hostname: $f.hostname, cpu: $f.cpu_model, machine: $f.machine, cpus_online: $f.cpus_online_list,
	    cpus_isolated: $f.cpus_isolated, nohz_full: $f.nohz_full, hypervisor: ($f.flag_hypervisor == "yes"), virt: $f.virt,
	    kernel: $f.kernel_release, kernel_version: $f.kernel_version, preempt_rt: ($f.preempt_rt == "yes"),
	    cmdline: $f.cmdline,
	    split_lock: {cpu_split_lock_detect: ($f.flag_split_lock_detect == "yes"), cpu_bus_lock_detect: ($f.flag_bus_lock_detect == "yes"),
	      mode: $f.sld_mode, read_from: $f.sld_source, cmdline_option: $f.cmdline_split_lock_detect,
	      kernel_log: $f.dmesg_split_lock, kernel_log_readable: ($f.dmesg_readable == "yes"),
	      split_lock_mitigate: $f.split_lock_mitigate},
	    measured_cpu: ($f.measure_cpu | tonumber), measured_isolated: ($f.measured_isolated == "yes"), load_cpus: $f.load_cpus,
	    cyclictest: $f.cyclictest, cyclictest_version: $f.cyclictest_version, loadavg_at_start: $f.loadavg},
	  host: {name: $host_name, cpu: $host_cpu, cores: $cores, kernel: $host_kernel},
	  skipped: $skipped,
	  params: ($params + {scenarios: $scenarios})
	}'
	exit 0
fi
kdir=$("$SLB_ROOT/scripts/build-kernel.sh" --path)
qemu=${SLB_QEMU:-qemu-system-x86_64}
# hashes DIR: {"file": "sha256 prefix", ...} over the series
hashes() {
	local p=()
	mapfile -t p < <(series_files "$1")
	[ ${#p[@]} -gt 0 ] || { echo '{}'; return; }
	sha256sum "${p[@]}" | jq -Rn '[inputs | capture("^(?<h>[0-9a-f]{16})[0-9a-f]* [ *](?<f>.*)$") | {(.f | sub(".*/"; "")): .h}] | add // {}'
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
