#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Draw a study run's plots (make plots RUN=...): per scenario an
# OSADL-style histogram, an overlay of all scenarios, one panel per
# comparison (scenario over its control), the 1 - CDF tail, the max per
# rep and a summary (per rep p99.9 and max, the control's range, the
# ratio), each as PNG and SVG under RUN/plots/ with stable names:
# hist-<scenario>, overlay, pairs, ccdf, maxrep, summary. Writes
# RUN/stats.json too.
set -uo pipefail
SLB_PROG=plots
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/rt-config/defaults.conf"
run=${1:-}
require_run_dir "$run"
command -v gnuplot >/dev/null || die "gnuplot missing: run 'make deps'"
out=$run/plots
data=$out/data
mkdir -p "$out"
# drawn anew: no plot of an earlier drawing is left beside these
rm -f "$out"/*.png "$out"/*.svg
# DEADLINE_US (make ... DEADLINE_US=N): the tail counts samples above it
# (default: above each comparison's control's largest latency).
# The run's primary measure (cyclictest, or rtla timerlat's thread latency
# when timerlat alone ran: scripts/lib.sh primary_measure).
stats_tool "$run/stats.json.tmp" "$SLB_ROOT/build/host/slb-stats" --plot-data "$data" \
	--measure "$(primary_measure "$(run_measure "$run")")" --deadline "${DEADLINE_US:-$DEADLINE_US_DEFAULT}" "$run" ||
	die "slb-stats failed on $run"
mv "$run/stats.json.tmp" "$run/stats.json"
names=$(tr '\n' ' ' <"$run/scenarios.list")
id=$(basename "$run")
# A native run (manifest "emulated": false) is real time on its machine.
what=
host=$(jq -r 'select(.emulated == false) | .target.hostname' "$run/manifest.json" 2>/dev/null | tr -d "'\"")
[ -z "$host" ] || what="; emul='native: $host'; timebase='real time'"
gp() { # gp SCRIPT OUTNAME [MORE GNUPLOT ASSIGNMENTS]
	draw_plot "$1" "$out/$2" "datadir='$data'; names='$names'; run='$id'$what${3:+; $3}" "$out/gnuplot.log"
}
width=1
while read -r idx name samples maxus p999 bin xmax reps; do
	case $idx in '#'*) continue ;; esac
	width=$bin
	[ "$samples" -gt 0 ] || continue
	# one x range and bin width for every scenario, so the plots compare
	gp latency-hist.gp "hist-$name" "scen='$name'; maxus=$maxus; bin=$bin; xmax=$xmax; nreps=$reps"
done <"$data/scenarios.dat"
# The plots of every scenario draw those with data; a run with none has
# only what says so.
measured=$(awk '!/^#/ && $3 > 0 { printf "%s ", $2 }' "$data/scenarios.dat")
if [ -z "$measured" ]; then
	say "no scenario has a usable rep: nothing to plot in $out"
	exit 0
fi
[ "$measured" = "$names" ] || say "no usable rep, not drawn: $(awk '!/^#/ && $3 == 0 { printf "%s ", $2 }' "$data/scenarios.dat")"
gp overlay.gp overlay "bin=$width; names='$measured'"
gp ccdf.gp ccdf "names='$measured'"
gp maxrep.gp maxrep
gp summary.gp summary
# one panel per comparison (control, scenario), from slb-stats' roles
# (and each panel's x range: the larger of the two scenarios' max)
# (both with data)
has() { case " $measured " in *" $1 "*) return 0 ;; esac; return 1; }
pairs=$(awk '!/^#/ && $3 != "-" { print $3, $2 }' "$data/summary-scen.dat" | while read -r a b; do
	has "$a" && has "$b" && echo "$a $b"; done)
pa=$(awk '{ printf "%s ", $1 }' <<<"$pairs")
pb=$(awk '{ printf "%s ", $2 }' <<<"$pairs")
pt=$(awk 'FNR == NR { if (!/^#/) top[$2] = $NF; next }
	{ printf "%d ", (top[$2] + 0 > top[$1] + 0 ? top[$2] : top[$1]) }' "$data/summary-scen.dat" - <<<"$pairs")
[ -z "$pairs" ] || gp pairs.gp pairs "bin=$width; pairs_a='$pa'; pairs_b='$pb'; pairs_top='$pt'"
say "plots in $out: $(cd "$out" && ls *.png | tr '\n' ' ')"
