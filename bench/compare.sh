#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compare two study runs of the same matrix (make compare A=<run> B=<run>):
# per scenario, A's and B's p99 and p99.9 side by side, the ratio B/A with
# its bootstrap CI, the Mann-Whitney p-value, and an overlay plot of the two
# histograms. Output: results/compare-<A>-vs-<B>/{compare.md,compare.json,
# overlay-<scenario>.png|svg}; the table is printed too.
# A run is a run id under results/ or a path to a run directory.
set -uo pipefail
SLB_PROG=compare
. "$(dirname "$0")/../scripts/lib.sh"
results=${SLB_RESULTS:-$SLB_ROOT/results}

runs() { (cd "$results" 2>/dev/null && for d in */scenarios.list; do [ -f "$d" ] && printf '%s ' "${d%/scenarios.list}"; done); }
resolve() { # resolve NAME VALUE: the run directory, or a usage error
	local v=$2
	[ -n "$v" ] || usage_error "$1 is required: make compare A=<run-id> B=<run-id> (runs: $(runs))"
	[ -f "$v/scenarios.list" ] && { echo "$v"; return; }
	[ -f "$results/$v/scenarios.list" ] && { echo "$results/$v"; return; }
	usage_error "$1='$v' is not a run id in $results nor a run directory (runs: $(runs))"
}
a=$(resolve A "${1:-}") || exit 2
b=$(resolve B "${2:-}") || exit 2
if ! cmp -s <(sort "$a/scenarios.list") <(sort "$b/scenarios.list"); then
	usage_error "runs differ in their scenario sets ($(tr '\n' ' ' <"$a/scenarios.list")vs $(tr '\n' ' ' <"$b/scenarios.list")); compare runs of the same matrix"
fi
out=$results/compare-$(basename "$a")-vs-$(basename "$b")
mkdir -p "$out"
stats_tool "$out/compare.json" "$SLB_ROOT/build/host/slb-stats" --against "$a" "$b" || die "slb-stats failed"
stats_tool "$out/stats-a.json" "$SLB_ROOT/build/host/slb-stats" --plot-data "$out/data-a" "$a" || die "slb-stats failed on $a"
stats_tool "$out/stats-b.json" "$SLB_ROOT/build/host/slb-stats" --plot-data "$out/data-b" "$b" || die "slb-stats failed on $b"
rm -f "$out/stats-b.json"
while read -r s; do
	draw_plot overlay.gp "$out/overlay-$s" \
		"datadir='$out'; names='data-a/$s data-b/$s'; run='$(basename "$a") vs $(basename "$b")'" "$out/gnuplot.log"
done <"$b/scenarios.list"
{
	echo "# Comparison: B = $(basename "$b") over A = $(basename "$a") (emulated, QEMU TCG)"
	echo
	echo "| scenario | A p99 (corrected) | B p99 | B/A p99 (95 % CI) | A p99.9 (corrected) | B p99.9 | B/A p99.9 (95 % CI) | p99.9 exact test p (design) | significant |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	jq -r --slurpfile A "$out/stats-a.json" '
		.scenarios as $B | .comparisons[] | . as $c |
		($A[0].scenarios[] | select(.name == $c.a)) as $sa | ($B[] | select(.name == $c.b)) as $sb |
		"| \($c.b) | \($sa.corrected.p99_us) | \($sb.corrected.p99_us) | x\($c.ratio_p99) (\($c.ratio_p99_ci[0])-\($c.ratio_p99_ci[1])) | \($sa.corrected.p999_us) | \($sb.corrected.p999_us) | x\($c.ratio_p999) (\($c.ratio_p999_ci[0])-\($c.ratio_p999_ci[1])) | \($c.p) (\($c.design // "unpaired")) | \(if $c.significant then "yes" else "no" end) |"' "$out/compare.json"
	echo
	echo "Overlay plots: $(cd "$out" && ls overlay-*.png | sed 's/.*/[&](&)/' | tr '\n' ' ')"
} >"$out/compare.md"
cat "$out/compare.md"
say "written: $out/compare.md"
