#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make a synthetic study run directory for tests of the statistics, plots
# and report: histograms drawn from known distributions, no guest needed.
#   fake-run.sh DIR SPEC...
# SPEC is NAME:BASE:SCALE:REPS:FATE[:OPS[:TRAPS[:CYCLES%]]]: REPS reps,
# latency = BASE + exponential(SCALE) us, seeded by rep (so equal specs give
# identical histograms), load fate FATE, 20000 samples, and as many cycles
# in rep.info (a real run's cross-check), which are CYCLES% (default 100)
# of the periods cyclictest was asked for. Rep k gets seed k (rep.info
# seed=k), as in a real virtual-clock study, so reps of two scenarios are
# pairs. The run gets a copy of rt-config/scenarios.conf (the roles), as a
# real study's does.
set -eu
dir=$1
shift
mkdir -p "$dir"
cp "$(dirname "$0")/../rt-config/scenarios.conf" "$dir/"
: >"$dir/scenarios.list"
for spec in "$@"; do
	IFS=: read -r name base scale reps fate ops traps pct <<<"$spec"
	echo "$name" >>"$dir/scenarios.list"
	for r in $(seq 1 "$reps"); do
		d=$dir/$name/rep$r
		mkdir -p "$d/files"
		printf 'outcome=ok\nseed=%s\nload_fate=%s\nload_ops=%s\nload_end_ms=%s\nsld_traps=%s\nsld_sigbus=%s\nsld_resumed=0\nct_cycles=20000\nct_expected=%s\nct_interval_us=1000\n' \
			"$r" "$fate" "${ops:-0}" 12 "${traps:-0}" "$([ "$fate" = sigbus ] && echo 1 || echo 0)" \
			$((2000000 / ${pct:-100})) >"$d/rep.info"
		awk -v base="$base" -v scale="$scale" -v seed="$r" -v n=20000 '
			BEGIN {
				srand(seed)
				for (i = 0; i < n; i++) { v = base + int(-scale * log(1 - rand())); c[v]++; if (v > max) max = v }
				print "# Histogram"
				for (v = 0; v <= max; v++) if (c[v]) printf "%06d %06d\n", v, c[v]
				printf "# Total: %09d\n# Max Latencies: %05d\n# Histogram Overflows: 00000\n", n, max
			}' >"$d/files/hist.txt"
	done
done
