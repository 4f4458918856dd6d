#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Draw a study run's plots (make plots RUN=...): per scenario an
# OSADL-style histogram, an overlay of all scenarios, the 1 - CDF tail and
# the max per rep, each as PNG and SVG under RUN/plots/ with stable names:
# hist-<scenario>, overlay, ccdf, maxrep. Writes RUN/stats.json too.
set -uo pipefail
SLB_PROG=plots
. "$(dirname "$0")/../scripts/lib.sh"
run=${1:-}
require_run_dir "$run"
command -v gnuplot >/dev/null || die "gnuplot missing: run 'make deps'"
out=$run/plots
data=$out/data
mkdir -p "$out"
"$SLB_ROOT/build/host/slb-stats" --plot-data "$data" "$run" >"$run/stats.json.tmp" ||
	die "slb-stats failed on $run"
mv "$run/stats.json.tmp" "$run/stats.json"
names=$(tr '\n' ' ' <"$run/scenarios.list")
id=$(basename "$run")
gp() { # gp SCRIPT OUTNAME [EXTRA -e]
	local script=$1 name=$2 fmt
	shift 2
	for fmt in png svg; do
		(cd "$SLB_ROOT" && gnuplot -e "datadir='$data'; out='$out/$name'; fmt='$fmt'; names='$names'; run='$id'" \
			"$@" "plots/$script") 2>>"$out/gnuplot.log" ||
			die "gnuplot $script failed (log: $out/gnuplot.log)"
		[ -s "$out/$name.$fmt" ] || die "gnuplot wrote no $out/$name.$fmt"
	done
}
while read -r idx name samples maxus p999; do
	case $idx in '#'*) continue ;; esac
	[ "$samples" -gt 0 ] || continue
	gp latency-hist.gp "hist-$name" -e "scen='$name'; maxus=$maxus"
done <"$data/scenarios.dat"
gp overlay.gp overlay
gp ccdf.gp ccdf
gp maxrep.gp maxrep
say "plots in $out: $(cd "$out" && ls *.png | tr '\n' ' ')"
