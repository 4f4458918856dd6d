#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compare two study runs of the same matrix (make compare A=<run> B=<run>):
# per scenario, A's and B's p99 and p99.9 side by side, the ratio B/A with
# its bootstrap CI, the Mann-Whitney p-value, and an overlay plot of the two
# histograms. Output: results/compare-<A>-vs-<B>/{compare.md,compare.json,
# overlay-<scenario>.png|svg}; the table is printed too.
# A run is a run id under results/ or a path to a run directory.
# Runs whose scenario sets differ (native runs of two boots skip different
# scenarios) are compared on the scenarios both hold, named with the others,
# and across: both runs as one matrix (view-union/: links), each scenario
# of one run against its control (scenarios.conf) in the other.
set -uo pipefail
SLB_PROG=compare
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
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
common=$(grep -Fxf "$a/scenarios.list" "$b/scenarios.list")
out=$results/compare-$(basename "$a")-vs-$(basename "$b")
mkdir -p "$out"
only= across=
label=$(for r in "$a" "$b"; do jq -r 'if .emulated == false then "native: \(.target.hostname), kernel \(.target.kernel), split-lock detection \(.target.split_lock.mode)" else "emulated, QEMU TCG" end' "$r/manifest.json" 2>/dev/null || echo "emulated, QEMU TCG"; done | uniq | paste -sd '|' - | sed 's/|/ vs /')
if ! cmp -s <(sort "$a/scenarios.list") <(sort "$b/scenarios.list"); then
	only_in() { grep -vFxf "$2" "$1" | paste -sd ' ' - | grep . || echo none; }
	only="only in A: $(only_in "$a/scenarios.list" "$b/scenarios.list"); only in B: $(only_in "$b/scenarios.list" "$a/scenarios.list")"
	# Across the runs (native runs of two boots): both as one matrix, B's
	# scenarios and A's others, so that a scenario of one run is judged
	# against its control in the other (split-on of a fatal boot against
	# baseline of an off boot) with the roles of B's scenarios.conf.
	u=$out/view-union/$(basename "$a")+$(basename "$b")
	rm -rf "$out/view-union"
	mkdir -p "$u"
	cp "$b/scenarios.conf" "$u/" 2>/dev/null
	grep -vFxf "$b/scenarios.list" "$a/scenarios.list" >"$u/scenarios.list"
	cat "$b/scenarios.list" >>"$u/scenarios.list"
	while read -r s; do ln -s "$(cd "$a" && pwd)/$s" "$u/$s"; done < <(grep -vFxf "$b/scenarios.list" "$a/scenarios.list")
	while read -r s; do ln -s "$(cd "$b" && pwd)/$s" "$u/$s"; done <"$b/scenarios.list"
	stats_tool "$out/across.json" "$SLB_ROOT/build/host/slb-stats" "$u" || die "slb-stats failed on both runs as one"
	across=$(jq -r --rawfile al <(grep -vFxf "$b/scenarios.list" "$a/scenarios.list") '
		($al | split("\n") | map(select(length > 0))) as $aonly |
		def ci(a): if a[0] == null then "no 95 % CI: too few reps" else "\(a[0])-\(a[1])" end;
		.comparisons[] | select(((.a | IN($aonly[])) and (.b | IN($aonly[]) | not)) or ((.b | IN($aonly[])) and (.a | IN($aonly[]) | not))) |
		"| \(.label) | \(.reps_b) vs \(.reps_a) | x\(.ratio_p99) (\(ci(.ratio_p99_ci))) | x\(.ratio_p999) (\(ci(.ratio_p999_ci))) | \(.p) | \(if .significant then "yes" else "no" end) |"' "$out/across.json")
	[ -n "$common$across" ] ||
		usage_error "runs differ in their scenario sets, have none in common and none judged against the other's ($(tr '\n' ' ' <"$a/scenarios.list")vs $(tr '\n' ' ' <"$b/scenarios.list")); compare runs of the same matrix"
	say "the runs differ in their scenario sets: comparing the $(echo "$common" | grep -c .) both hold ($(echo "$common" | tr '\n' ' ')) and $(echo "$across" | grep -c .) across them; $only"
	if [ -n "$common" ]; then
		# A view of each run holding the common scenarios only (links).
		for v in a b; do
			src=$(cd "${!v}" && pwd)
			rm -rf "$out/view-$v"
			mkdir -p "$out/view-$v/$(basename "$src")"
			view=$out/view-$v/$(basename "$src")
			cp "$src/scenarios.conf" "$view/" 2>/dev/null
			[ ! -f "$src/manifest.json" ] || cp "$src/manifest.json" "$view/"
			echo "$common" >"$view/scenarios.list"
			while read -r s; do ln -s "$src/$s" "$view/$s"; done <<<"$common"
			printf -v "$v" %s "$view"
		done
	fi
fi
if [ -n "$common" ]; then
	stats_tool "$out/compare.json" "$SLB_ROOT/build/host/slb-stats" --against "$a" "$b" || die "slb-stats failed"
	stats_tool "$out/stats-a.json" "$SLB_ROOT/build/host/slb-stats" --plot-data "$out/data-a" "$a" || die "slb-stats failed on $a"
	stats_tool "$out/stats-b.json" "$SLB_ROOT/build/host/slb-stats" --plot-data "$out/data-b" "$b" || die "slb-stats failed on $b"
	rm -f "$out/stats-b.json"
	while read -r s; do
		draw_plot overlay.gp "$out/overlay-$s" \
			"datadir='$out'; names='data-a/$s data-b/$s'; run='$(basename "$a") vs $(basename "$b")'" "$out/gnuplot.log"
	done <"$b/scenarios.list"
fi
{
	echo "# Comparison: B = $(basename "$b") over A = $(basename "$a") ($label)"
	echo
	[ -z "$only" ] || { echo "Scenarios in one run only: $only"; echo; }
	if [ -n "$common" ]; then
		echo "| scenario | A p99 (corrected) | B p99 | B/A p99 (95 % CI) | A p99.9 (corrected) | B p99.9 | B/A p99.9 (95 % CI) | p99.9 exact test p (design) | significant |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		jq -r --slurpfile A "$out/stats-a.json" '
			.scenarios as $B | .comparisons[] | . as $c |
			($A[0].scenarios[] | select(.name == $c.a)) as $sa | ($B[] | select(.name == $c.b)) as $sb |
			"| \($c.b) | \($sa.corrected.p99_us) | \($sb.corrected.p99_us) | x\($c.ratio_p99) (\($c.ratio_p99_ci[0])-\($c.ratio_p99_ci[1])) | \($sa.corrected.p999_us) | \($sb.corrected.p999_us) | x\($c.ratio_p999) (\($c.ratio_p999_ci[0])-\($c.ratio_p999_ci[1])) | \($c.p) (\($c.design // "unpaired")) | \(if $c.significant then "yes" else "no" end) |"' "$out/compare.json"
		echo
		echo "Overlay plots: $(cd "$out" && ls overlay-*.png | sed 's/.*/[&](&)/' | tr '\n' ' ')"
		echo
	fi
	if [ -n "$across" ]; then
		echo "## Across the two runs"
		echo
		echo "A scenario of one run against its control (scenarios.conf) in the other, one"
		echo "value per rep, as if both runs were one matrix (one run per boot):"
		echo
		echo "| ratio | reps | p99 (95 % CI) | p99.9 (95 % CI) | exact rank test p | significant |"
		echo "| --- | --- | --- | --- | --- | --- |"
		echo "$across"
		echo
	fi
} >"$out/compare.md"
cat "$out/compare.md"
say "written: $out/compare.md"
