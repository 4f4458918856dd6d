# SPDX-License-Identifier: GPL-2.0-or-later
# The one reader of a scenario file (rt-config/scenarios.conf format), for
# the orchestrator and the report. Sourced after scripts/lib.sh.
#
#   scenario_names FILE          every scenario name, in file order
#   scenario_field FILE NAME N   column N (1-based, trimmed) of scenario NAME;
#                                empty when there is no such scenario
# Columns: 1 name, 2 kernel command line, 3 load, 4 sysctls, 5 control,
# 6 expect, 7 what it shows (bench/lib/run.c reads 5-7 for the statistics),
# 8 guest (optional: vcpus=N, kernel=VARIANT, cpuflag=+F/-F, isolation=I,
# interval=US, isolated=N, offender=P; bench/study.sh).

scenario_names() {
	sed -n 's/^\([a-z0-9][a-z0-9-]*\) *|.*/\1/p' "$1"
}

scenario_field() {
	awk -F'|' -v n="$2" -v f="$3" '/^#/ { next } { g = $1; gsub(/ /, "", g) }
		g == n { v = $f; gsub(/^ +| +$/, "", v); print v; exit }' "$1"
}
