#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Write a study run's report (make report RUN=...): RUN/report.md (and the
# same as RUN/report.html, with a stylesheet of its own), read as an RT
# engineer's note: the decision first (the platform the figures come from,
# then the decision and one headline per harm scenario against the control
# its scenario names, then the summary plot), the verdict sentences
# computed by slb-stats, then the setup, the tables of reps, the
# comparisons and the method, the traced wake-up path (traced reps only:
# RUN/trace.json, bench/report/report-trace.sh), the other plots, and the caveats
# last.
# Draws the plots first (bench/report/plots.sh), which also writes RUN/stats.json.
# Exit status: 0 written, 1 the plots, the statistics or cmark-gfm failed.
set -uo pipefail
SLB_PROG=report
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/bench/scenarios.sh"
. "$SLB_ROOT/bench/report/report-native.sh"
. "$SLB_ROOT/bench/report/report-runner.sh"
. "$SLB_ROOT/bench/report/report-timerlat.sh"
. "$SLB_ROOT/bench/report/report-trace.sh"
. "$SLB_ROOT/rt-config/defaults.conf"
run=${1:-}
require_run_dir "$run"
"$SLB_ROOT/bench/report/plots.sh" "$run" || exit 1
st=$run/stats.json
m=$run/manifest.json
[ -f "$m" ] || echo '{}' >"$m.missing"
mf=$m
[ -f "$m" ] || mf=$m.missing
# The manifest's fields the report branches on, read at once (json_fields;
# a report asked about fifteen times).
{
	IFS= read -r mf_clock; IFS= read -r mf_quantum; IFS= read -r mf_model
	IFS= read -r mf_lock_ns; IFS= read -r mf_calibration
} < <(json_fields "$mf" '.params.clock // "wall"' '.params.quantum_ns // "?"' '.params.bus_lock_model // "all"' \
	'.params.bus_lock_ns // "?"' .params.calibration)
report_is_native "$mf" || :
# who: what recorded the main table's latencies (primary_measure).
if [ "$(primary_measure "$(run_measure "$run")")" = timerlat-thread ]; then
	who="rtla timerlat (its thread latency)"
else
	who=cyclictest
fi
# report_platform MF: where the figures come from, one sentence to open
# the Decision: the machine of a native run; for an emulated one the clock
# and the bus-lock model, with the calibration and the machine it measured
# (the calibration read with the manifest's fields: mf_calibration).
report_platform() {
	local cal mach=
	if report_is_native "$1"; then
		report_native_platform "$1"
		return
	fi
	cal=$mf_calibration
	case $cal in "" | /*) ;; *) cal=$SLB_ROOT/$cal ;; esac
	[ -z "$cal" ] || mach=$(jq -r -L "$SLB_ROOT/bench/lib" 'include "calibration"; cal_machine' "$cal" 2>/dev/null) ||
		mach="a machine whose calibration.json is not here"
	jq -r --arg mach "$mach" '.params as $p | if ($p.clock // "wall") == "virtual" then
		"Emulated, not measured on hardware: a QEMU TCG guest in virtual time (1 instruction = 1 ns), whose split locks cost what the bus-lock model says: \(if ($p.bus_lock_model // "all") == "calibrated" then "calibrated (\($p.bus_lock_ns // "?") ns to its issuer, the bus held \($p.bus_hold_ns // "?") ns)" else "every vCPU stalls \($p.bus_lock_ns // "?") ns (the worst case)" end)\(if $p.calibration then ", from the calibration \($p.calibration) of \($mach)" else "" end)."
		else "Emulated, not measured on hardware: a QEMU TCG guest in wall-clock time on \(.host.cpu // "this host"), its split locks stopping every vCPU for about a microsecond of host time." end' "$1"
}

# The blocks of stats.json the report prints, rendered by one jq (a jq
# costs some 17 ms of CPU to start; these were nine), in this order, each
# its lines joined, a NUL after each; a block whose expression fails
# keeps the lines it gave before, as its own jq call did.
st_blocks=(dec head verdicts latency co_p999 max comparisons no_data method)
declare -A stb=()
{
	for b in "${st_blocks[@]}"; do IFS= read -r -d '' "stb[$b]" || break; done
} < <(jq -j --slurpfile e <(while read -r s; do
		[ "$(scenario_field "$run/scenarios.conf" "$s" 6)" = harm ] && printf '"%s"\n' "$s"
	done <"$run/scenarios.list") '
	def v: if . == null then "no data" else . end;
	def ci(a): if a[0] == null then "no 95 % CI: too few reps" else "\(a[0])-\(a[1])" end;
	def rng(v): "\(v | min)-\(v | max)";
	def block(f): [try f] | join("\n") + "\u0000";
	block([.verdicts[] | select(startswith("Decision: ")) | ltrimstr("Decision: ")] | first // empty),
	block(.comparisons[] | select(.b as $b | $e | index($b)) | "- **\(.b)** against \(.a): p99.9 \(.effect)"),
	block(.verdicts[] | select(startswith("Decision: ") | not) | "- \(.)"),
	block(.scenarios[] | "| \(.name) | \(.reps_ok)/\(.reps)\(if (.reps_unusable // 0) > 0 then " (\(.reps_unusable) unusable)" else "" end) | \(.samples) | \(.avg_us | v) | \(.p50_us | v) | \(.p99_us | v) | \(.p999_us | v) | \(.max_us | v) | \(.corrected.p99_us | v) | \(.corrected.p999_us | v) | \(if .cycles_pct == null or .cycles_pct < 0 then "no data" else "\(.cycles_pct_text // .cycles_pct) %" end) | \(.load_fates) |"),
	block(.scenarios[] | "- \(.name): \([.per_rep[] | "\(if .co_p999_beyond_limit then ">" else "" end)\(.co_p999_us)\(if .p999_enough_samples then "" else "\\*" end)"] | join(", ") | if . == "" then "no data" else . end)"),
	block(.scenarios[] | "- \(.name): \([.per_rep[] | .max_us] | join(", ") | if . == "" then "no data" else . end)"),
	block(.comparisons[] | "| \(.label) | \(.design // "unpaired") | \(if .design == "paired" then "\(.pairs) pairs" else "\(.reps_b) vs \(.reps_a)" end) | x\(.ratio_p99) (\(ci(.ratio_p99_ci))) | x\(.ratio_p999) (\(ci(.ratio_p999_ci))) | \(.p) | \(if .significant then "yes" else "no" end) | \(if .significant then "no (a difference)" elif .equivalent then "yes" elif .equivalence == "not resolvable" then "not resolvable at this resolution (\(.floor_us) us)" elif .reps_needed_detect > 0 and (.significant | not) then "inconclusive: ~\(.reps_needed_detect) \(if .design == "paired" then "pairs" else "reps per side" end) to detect x1.2, ~\(.reps_needed_equivalence) to show equivalence" else "not shown" end) | \(if .tail then "max \(rng(.tail.max_b_us)) vs \(rng(.tail.max_a_us)) us (p \(.tail.p_max)); above \(.tail.threshold_us) us: \(rng(.tail.above_b)) vs \(rng(.tail.above_a)) (p \(.tail.p_above))\(if .tail.significant then ": differs" else "" end)" else "-" end) | \([if .design != "paired" and .design_note then "unpaired: \(.design_note)" else empty end, if .ties then "ties: the exact interval is conservative" else empty end] | join("; ")) |"),
	block(.comparisons_no_data[]? | "| \(.label) | - | - | no data | no data | - | - | - | - | \(.no_usable_rep | join(", ")) has no usable rep |"),
	block(.method | [.unit, .design, .values, .ci, .test, "significant: \(.significant)", .equivalent, "tail: \(.tail)", "inconclusive: \(.reps_needed)"] | map(select(. != null)) | join("; "))' "$st")
# stb_print BLOCK: the block's lines, if it has any
stb_print() { [ -z "${stb[$1]:-}" ] || printf '%s\n' "${stb[$1]}"; }

{
	echo "# Split-lock latency study: run $(basename "$run")"
	echo
	report_runner_warning "$mf"
	echo "## Decision"
	echo
	# One paragraph: the platform, then slb-stats' decision.
	dec=${stb[dec]:-}
	[ -n "$dec" ] || dec="no decision: that takes a harm scenario and a kill scenario (scenarios.conf, column expect) with data and a control, and this run lacks one."
	echo "$(report_platform "$mf") ${dec^}"
	echo
	# The headline: each harm scenario against the control its scenario
	# names (slb-stats' wording, .effect), one ratio each.
	if [ -n "${stb[head]:-}" ]; then
		echo "Each scenario expected to harm, p99.9 on the isolated vCPU against the control it names:"
		echo
		stb_print head
		echo
	fi
	[ ! -f "$run/plots/summary.png" ] || { echo '![summary](plots/summary.png)'; echo; }
	echo "## Verdict"
	echo
	stb_print verdicts
	echo
	echo "## Setup"
	echo
	if report_is_native "$mf"; then
		report_native_banner "$mf"
	elif [ "$mf_clock" = virtual ]; then
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
	report_native_setup "$mf"
	jq -r 'select(.emulated != false) |
		"- date: \(.date // "?"); host: \(.host.cpu // "?"), \(.host.cores // "?") cores",
		"- guest kernel: \(.kernel.package // "?") + patch/linux (\(.kernel.patches // {} | length) patches), config \(.kernel.config_sha256 // "?")",
		"- emulator: \(.qemu.version // "?") + patch/qemu (\(.qemu.patches // {} | length) patches), -cpu \(.qemu.cpu // "?")",
		"- clock: \(.params.clock // "wall")\(if .params.clock == "virtual" then " (lock-step quantum \(.params.quantum_ns) ns; bus-lock model \(.params.bus_lock_model // "all")\(if .params.calibrated_cost_ns then ", scaled to cost \(.params.bus_lock_ns) ns: hold \(.params.bus_hold_ns) ns (the calibration'"'"'s \(.params.calibrated_cost_ns) and \(.params.calibrated_hold_ns) ns, scaled by \(.params.bus_lock_ns)/\(.params.calibrated_cost_ns))" else "" end): \(if (.params.bus_lock_model // "all") == "calibrated" then "a split lock costs its issuer \(.params.bus_lock_ns) ns and holds the bus \(.params.bus_hold_ns) ns; another vCPU waits only at data accesses that miss a \(.params.bus_cache_kb) KiB cache, from \(.params.calibration)" else "every vCPU that meets a split lock waits \(.params.bus_lock_ns) ns (the worst case)" end); rep k uses seed k)" else "" end); \(.params.jobs // 1) guest(s) at a time",
		"- vCPUs: \(.params.vcpus // "?") (last one isolated for \($who)); \($who) \(.params.duration_s // "?") s per run at \(.params.interval_us // "?") us, after \(.params.warmup_s // "?") s of load; \(.params.reps // "?") reps per scenario, interleaved",
		"- guest command line: `\(.guest_cmdline_base // "?")` + the scenario'"'"'s options; each rep keeps the one it booted in `rep<k>/cmdline` (for scenarios with guest options: below the scenarios)"' --arg who "$who" "$mf"
	report_runner_setup "$mf"
	echo
	echo "## Scenarios"
	echo
	echo "| scenario | kernel options | load | sysctls | judged against | expected | guest |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	while read -r s; do
		f() { scenario_field "$run/scenarios.conf" "$s" "$1" | sed 's/^$/-/'; }
		printf '| %s | `%s` | %s | %s | %s | %s | %s |\n' "$s" "$(f 2)" "$(f 3)" "$(f 4)" "$(f 5)" "$(f 6)" "$(f 8)"
	done <"$run/scenarios.list"
	echo
	# The command line each scenario with guest options booted with (its
	# first rep's, without the seed, the job and the snapshot point).
	own=$(while read -r s; do
		c=$(ls "$run/$s"/rep*/cmdline 2>/dev/null | head -n 1)
		[ -n "$(scenario_field "$run/scenarios.conf" "$s" 8)" ] && [ -n "$c" ] || continue
		printf -- '- %s: `%s`\n' "$s" "$(sed 's/ slb\.\(seed\|job\|snapshot\)=[^ ]*//g' "$c")"
	done <"$run/scenarios.list")
	if [ -n "$own" ]; then
		echo "Scenarios with guest options boot with a command line of their own:"
		echo
		printf '%s\n\n' "$own"
	fi
	report_skipped "$run"
	echo "## Latency on the isolated vCPU (us, $(report_is_native "$mf" && echo "real time" || echo emulated)), pooled over reps"
	echo
	echo "Raw: what $who recorded. Corrected: with the periods it missed while"
	echo "waiting for a late wake-up counted back in (coordinated omission, as"
	echo "HdrHistogram: reconstructed while at least one interval late, which can"
	echo "lower a quantile above one interval as well as raise one); the"
	echo "comparisons and verdicts use the corrected per-rep figures."
	echo
	echo "| scenario | ok reps | samples | avg | p50 | p99 | p99.9 | max | corrected p99 | corrected p99.9 | periods measured | load fate |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	stb_print latency
	# The reps that did not end ok, with why (outcome.json, stderr.txt).
	failed=$(while read -r s; do
		for o in "$run/$s"/rep*/outcome.json; do
			[ -f "$o" ] || continue
			jq -r --arg s "$s" --arg r "$(basename "$(dirname "$o")")" \
				'select(.outcome != "ok") | "- \($s) \($r): \(.outcome): \(.reason // "no reason recorded")"' "$o"
		done
	done <"$run/scenarios.list")
	if [ -n "$failed" ]; then
		echo
		echo "Reps that did not end ok (not pooled; each rep's outcome.json and stderr.txt say more):"
		echo
		printf '%s\n' "$failed"
	fi
	# Scenarios that measured more than one isolated CPU (isolated=N):
	# each CPU's pooled figures (raw) and the worst (summary.json).
	if jq -e '[.scenarios[] | select(.cpus)] | length > 0' "$run/summary.json" >/dev/null 2>&1; then
		echo
		echo "Per measured CPU (a $who thread each; raw, pooled over reps; the worst by p99.9, then max):"
		echo
		echo "| scenario | CPU | samples | p99 | p99.9 | max | |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
		jq -r 'def v: if . == null then "no data" else . end;
			.scenarios[] | select(.cpus) | .worst_cpu as $w | .name as $n | .cpus[] |
			"| \($n) | \(.cpu | v) | \(.samples) | \(.p99_us | v) | \(.p999_us | v) | \(.max_us | v) | \(if .cpu == $w then "worst" else "" end) |"' "$run/summary.json"
	fi
	echo
	echo "Per rep, corrected p99.9 (us; \\* = fewer than 10 samples beyond it, not used;"
	echo "a leading > = past the histogram's limit, the value is the rep's largest latency):"
	echo
	stb_print co_p999
	echo
	echo "Per rep, the largest latency (us; the tail beyond p99.9, compared below):"
	echo
	stb_print max
	echo
	report_timerlat "$run" || die "slb-stats failed on $run (timerlat)"
	echo "## Comparisons (corrected, one value per rep)"
	echo
	echo "Paired: rep k of both scenarios ran with seed k, so each pair's log-ratio is"
	echo "the unit (exact signed-rank test; Hodges-Lehmann on the Walsh averages, exact"
	echo "interval); unpaired where the reps differ in number or their seeds do not"
	echo "match (exact rank test over the reps; Hodges-Lehmann of all differences)."
	echo "The p column is that test on p99.9. \"not resolvable\": one 1 us bin next to"
	echo "the value is already beyond x1.2, so the histogram cannot tell equivalence."
	echo "Tail: per rep the largest latency and the samples above the threshold (the"
	echo "control's maximum, or DEADLINE_US), tested the same way."
	echo
	echo "| ratio | design | reps | p99 (95 % CI) | p99.9 (95 % CI) | p99.9 exact test p | significant | within x1.2 (95 % CI inside) | tail beyond p99.9: max / samples above, p | notes |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	stb_print comparisons
	stb_print no_data
	echo
	echo "Method: ${stb[method]:-}."
	echo
	report_trace "$run"
	echo "## Plots"
	echo
	# what plots.sh drew (a scenario without a usable rep is left out;
	# the summary opens the report)
	img() { [ ! -f "$run/plots/$2.png" ] || printf '![%s](plots/%s.png)%b' "$1" "$2" "$3"; }
	img "each comparison" pairs '\n\n'
	echo "$(img overlay overlay ' ')$(img tail ccdf ' ')$(img "max per rep" maxrep '')"
	[ -f "$run/plots/summary.png" ] || echo "No plots: no scenario has a usable rep."
	echo
	while read -r s; do
		[ -f "$run/plots/hist-$s.png" ] && echo "- $s: [PNG](plots/hist-$s.png), [SVG](plots/hist-$s.svg)"
	done <"$run/scenarios.list"
	echo
	echo "## Caveats"
	echo
	if report_is_native "$mf"; then
		report_native_caveats "$mf"
	elif [ "$mf_clock" = virtual ]; then
		echo "The guest runs under QEMU TCG in virtual time: every instruction costs 1 ns,"
		echo "vCPUs run in lock-step quanta of $mf_quantum ns (what one vCPU does to another"
		echo "may land up to a quantum early or late), and a split lock that does not trap"
		if [ "$mf_model" = calibrated ]; then
			jq -r '.params | if .calibrated_cost_ns then
				"costs its issuer \(.bus_lock_ns) ns and holds the bus \(.bus_hold_ns) ns: the native calibration",
				"\(.calibration) (\(.calibrated_cost_ns) and \(.calibrated_hold_ns) ns) scaled to a cost of \(.bus_lock_ns) ns",
				"(bench/lib/calibration.jq, cal_model; the hold in proportion, the cache unchanged): another vCPU"
				else "costs its issuer \(.bus_lock_ns) ns and holds the bus \(.bus_hold_ns) ns, as the native",
				"calibration \(.calibration) measured (bench/lib/calibration.jq, cal_model): another vCPU" end,
				"waits for the rest of a lock only where it misses its \(.bus_cache_kb) KiB modelled cache",
				"(\(.bus_cache_ways) ways, LRU, by physical line; data, instruction fetches and page walks; kept",
				"coherent: a store, a locked access or a split lock takes the line from the other vCPUs'"'"'",
				"caches), which stands for the caches a bus lock does not reach; arithmetic and hits go on (a",
				"sleeping vCPU owes nothing). Where the study can tell that no split lock completes (a load",
				"without one, or fatal detection on its default CPU: bench/target/guest.sh), the guest runs",
				"without the cache, which would decide nothing; each rep'"'"'s qemu-cmd shows which. The worst case,"' "$mf"
			echo "BUS_LOCK_MODEL=all, stalls every vCPU that meets a lock. Not modelled: memory"
		else
			echo "holds the bus for the modelled bus-lock time ($mf_lock_ns ns): its issuer waits, and"
			echo "every other vCPU that runs while it is held stops until it is free (a sleeping"
			echo "one owes nothing), the worst case of hardware (BUS_LOCK_MODEL=all). Not modelled: caches,"
			echo "memory"
		fi
		echo "bandwidth, real instruction timing, bus locks from LOCKs on"
		echo "uncacheable memory. What carries over to hardware: the ratios between"
		echo "scenarios measured side by side, how they grow with the bus-lock cost"
		echo "(make bench-sweep), and who dies (detection kills the offender at its first"
		echo "split lock, or warns and lets it run). What does not: absolute microseconds."
	else
		echo "The guest runs under QEMU TCG in wall-clock time: its clock is real, but"
		echo "every instruction is emulated, and an emulated split lock stops all vCPUs"
		echo "(MTTCG's exclusive path) for about a microsecond of host time, not a real"
		echo "bus lock; host scheduling puts a millisecond floor under every latency."
		echo "What carries over to hardware: the ratios between scenarios measured side by"
		echo "side, and who dies. What does not: absolute microseconds, and the cost of a"
		echo "misaligned atomic inside one cache line, which TCG also serialises while"
		echo "hardware does not."
	fi
} >"$run/report.md.tmp"
rm -f "$m.missing"
mv "$run/report.md.tmp" "$run/report.md"
# report.html: the same Markdown through Debian's cmark-gfm (tables
# extension), in a page of its own.
command -v cmark-gfm >/dev/null || die "cmark-gfm missing: run 'make deps'"
{
	printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>%s</title>\n' "Split-lock latency study: run $(basename "$run")"
	# A stylesheet of its own, no external resource: the title as a
	# header block, the Decision paragraph marked, tables with padding,
	# zebra rows and right-aligned numbers (cmark-gfm's align="right").
	cat <<-'EOF'
	<style>
	body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232b;max-width:75em;margin:0 auto;padding:0 1.2em 3em}
	h1{font-size:1.45em;margin:.8em 0 .6em;padding:.55em .8em;background:#eef2f7;border-left:6px solid #2b5fa8}
	h2{font-size:1.2em;margin:1.8em 0 .5em;padding-bottom:.15em;border-bottom:1px solid #c9d1db}
	h2:first-of-type+p{font-size:1.05em;padding:.6em .9em;background:#fdf7e7;border-left:5px solid #c9971c}
	table{border-collapse:collapse;font-size:.86em;margin:.6em 0 1em;display:block;overflow-x:auto}
	th,td{border:1px solid #d3d9e0;padding:.28em .6em;vertical-align:top}
	th{background:#e6ebf1}
	tbody tr:nth-child(even){background:#f5f7fa}
	td,th{font-variant-numeric:tabular-nums}
	code{font-size:.92em;background:#f1f3f5;padding:0 .2em}
	li{margin:.25em 0}
	img{max-width:100%;height:auto}
	</style>
	EOF
	printf '</head><body>\n'
	cmark-gfm --extension table --extension autolink "$run/report.md" || exit 1
	printf '</body></html>\n'
} >"$run/report.html.tmp" && mv "$run/report.html.tmp" "$run/report.html" || die "cmark-gfm failed on $run/report.md"
say "written: $run/report.md and report.html"
