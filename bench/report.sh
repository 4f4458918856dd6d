#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Write a study run's report (make report RUN=...): RUN/report.md (and the
# same as RUN/report.html) with the
# setup, the summary table, the comparisons, the verdict sentences computed
# by slb-stats from the data, the plots and the caveats of emulated time.
# Draws the plots first (bench/plots.sh), which also writes RUN/stats.json.
set -uo pipefail
SLB_PROG=report
. "$(dirname "$0")/../scripts/lib.sh"
. "$SLB_ROOT/bench/scenarios.sh"
run=${1:-}
require_run_dir "$run"
"$SLB_ROOT/bench/plots.sh" "$run" || exit 1
st=$run/stats.json
m=$run/manifest.json
[ -f "$m" ] || echo '{}' >"$m.missing"
mf=$m
[ -f "$m" ] || mf=$m.missing
{
	echo "# Split-lock latency study: run $(basename "$run")"
	echo
	if [ "$(jq -r '.params.clock // "wall"' "$mf")" = virtual ]; then
		echo "**Emulated, virtual time:** every latency below is instruction time of a"
		echo "QEMU TCG guest (icount, 1 instruction = 1 ns, vCPUs in lock-step quanta,"
		echo "a modelled bus-lock cost per split lock). Deterministic for a seed; read the"
		echo "ratios and who dies, not the microseconds."
	else
		echo "**Emulated, wall-clock time:** every latency below is QEMU TCG time on a"
		echo "host without split-lock hardware, with the host's noise in it. Read the"
		echo "ratios and who dies, not the microseconds."
	fi
	echo
	echo "## Setup"
	echo
	jq -r '
		"- date: \(.date // "?"); host: \(.host.cpu // "?"), \(.host.cores // "?") cores",
		"- guest kernel: \(.kernel.package // "?") + patch/linux (\(.kernel.patches // {} | length) patches), config \(.kernel.config_sha256 // "?")",
		"- emulator: \(.qemu.version // "?") + patch/qemu (\(.qemu.patches // {} | length) patches), -cpu \(.qemu.cpu // "?")",
		"- clock: \(.params.clock // "wall")\(if .params.clock == "virtual" then " (lock-step quantum \(.params.quantum_ns) ns, bus lock \(.params.bus_lock_ns) ns per split lock; rep k uses seed k)" else "" end); \(.params.jobs // 1) guest(s) at a time",
		"- vCPUs: \(.params.vcpus // "?") (last one isolated for cyclictest); cyclictest \(.params.duration_s // "?") s per run at \(.params.interval_us // "?") us, after \(.params.warmup_s // "?") s of load; \(.params.reps // "?") reps per scenario, interleaved",
		"- guest command line: `\(.guest_cmdline_base // "?")` + the scenario'"'"'s options"' "$mf"
	echo
	echo "## Scenarios"
	echo
	echo "| scenario | kernel options | load | sysctls |"
	echo "| --- | --- | --- | --- |"
	while read -r s; do
		printf '| %s | `%s` | %s | %s |\n' "$s" "$(scenario_field "$run/scenarios.conf" "$s" 2 | sed 's/^$/-/')" \
			"$(scenario_field "$run/scenarios.conf" "$s" 3 | sed 's/^$/-/')" "$(scenario_field "$run/scenarios.conf" "$s" 4 | sed 's/^$/-/')"
	done <"$run/scenarios.list"
	echo
	echo "## Latency on the isolated vCPU (us, emulated), pooled over reps"
	echo
	echo "| scenario | ok reps | samples | avg | p50 | p99 (95 % CI) | p99.9 (95 % CI) | max | overflows | load fate |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	jq -r '.scenarios[] | "| \(.name) | \(.reps_ok)/\(.reps) | \(.samples) | \(.avg_us) | \(.p50_us) | \(.p99_us) (\(.p99_ci[0])-\(.p99_ci[1])) | \(.p999_us) (\(.p999_ci[0])-\(.p999_ci[1])) | \(.max_us) | \(.overflows) | \(.load_fates) |"' "$st"
	echo
	echo "## Comparisons"
	echo
	echo "| ratio | avg | p99 (95 % CI) | p99.9 (95 % CI) | Mann-Whitney p | significant |"
	echo "| --- | --- | --- | --- | --- | --- |"
	jq -r '.comparisons[] | "| \(.label) | x\(.ratio_avg) | x\(.ratio_p99) (\(.ratio_p99_ci[0])-\(.ratio_p99_ci[1])) | x\(.ratio_p999) (\(.ratio_p999_ci[0])-\(.ratio_p999_ci[1])) | \(.mw_p) | \(if .significant then "yes" else "no" end) |"' "$st"
	echo
	echo "Method: $(jq -r '.method.ci' "$st"); $(jq -r '.method.test' "$st"); significant: $(jq -r '.method.significant' "$st")."
	echo
	echo "## Verdict"
	echo
	jq -r '.verdicts[] | "- \(.)"' "$st"
	echo
	echo "## Plots"
	echo
	echo "![overlay](plots/overlay.png) ![tail](plots/ccdf.png) ![max per rep](plots/maxrep.png)"
	echo
	while read -r s; do
		[ -f "$run/plots/hist-$s.png" ] && echo "- $s: [PNG](plots/hist-$s.png), [SVG](plots/hist-$s.svg)"
	done <"$run/scenarios.list"
	echo
	echo "## Caveats"
	echo
	echo "The guest runs under QEMU TCG: its clock is real, but every instruction is"
	echo "emulated, and an emulated split lock stops all vCPUs (MTTCG's exclusive"
	echo "path) for about a microsecond of host time, not a real bus lock. What carries"
	echo "over to hardware: the ratios between scenarios measured side by side, and who"
	echo "dies (detection kills the offender at its first split lock, or warns and slows"
	echo "it). What does not: absolute microseconds, and the cost of a misaligned"
	echo "atomic inside one cache line, which TCG also serialises while hardware does not."
	echo "Under TCG an idle housekeeping vCPU has been seen to make the isolated vCPU's"
	echo "latency worse than a busy one (baseline above aligned): judge the cost of split"
	echo "locks against the aligned control, which runs the same load without them."
} >"$run/report.md.tmp"
rm -f "$m.missing"
mv "$run/report.md.tmp" "$run/report.md"
awk -f "$SLB_ROOT/bench/md2html.awk" "$run/report.md" >"$run/report.html.tmp" &&
	mv "$run/report.html.tmp" "$run/report.html"
say "written: $run/report.md and report.html"
