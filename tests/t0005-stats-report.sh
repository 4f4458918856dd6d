#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Statistics, plots, report and compare on synthetic runs (tests/fake-run.sh)
# with known distributions: identical inputs are not significant, shifted
# ones are; each verdict sentence follows the numbers (crafted runs flip
# them); plots are real PNG/SVG files; compare rejects bad input.
. "$(dirname "$0")/lib.sh"
FAKE=$T_ROOT/tests/fake-run.sh
STATS=$HOSTBIN/slb-stats
cp_conf() { cp "$T_ROOT/rt-config/scenarios.conf" "$1/"; }

# Run "harm": split-off 6x the spread of the others; detection cures it.
"$FAKE" "$T_TMP/harm" baseline:100:10:3:none aligned:100:10:3:completed \
	split-off:100:60:3:completed:0:0:25 split-on:100:10:3:sigbus:0
"$STATS" "$T_TMP/harm" >"$T_TMP/harm.json"
cmpf() { jq -e --arg l "$2" ".comparisons[] | select(.label == \$l) | $3" "$T_TMP/$1.json"; }
t_ok "identical histograms: not significant, p = 1, ratio 1" cmpf harm "aligned / baseline" '.significant == false and .mw_p == 1 and .ratio_p999 == 1'
t_ok "shifted histograms: significant" cmpf harm "split-off / aligned" '.significant == true and .mw_p < 1e-6 and .ratio_p999 > 2'
t_ok "the p99.9 ratio lies inside its 95 % CI" cmpf harm "split-off / aligned" '.ratio_p999_ci[0] <= .ratio_p999 and .ratio_p999 <= .ratio_p999_ci[1]'
t_ok "per-scenario p99.9 CI brackets the pooled p99.9" jq -e '.scenarios[] | select(.name == "split-off") | .p999_ci[0] <= .p999_us and .p999_us <= .p999_ci[1]' "$T_TMP/harm.json"
has_verdict() { jq -e --arg re "$2" '[.verdicts[] | test($re)] | any' "$T_TMP/$1.json" || { jq '.verdicts' "$T_TMP/$1.json"; return 1; }; }
t_ok "harm run: 'raised p99.9 ... over the aligned control'" has_verdict harm '^Split locks .* raised p99.9 latency .* x[0-9.]+ \(95 % CI'
t_ok "harm run: offender died of SIGBUS, latency within noise of baseline" has_verdict harm 'died of SIGBUS in 3 of 3 reps.*stayed within noise of baseline.*not significant'
t_ok "harm run: decision is to enable detection" has_verdict harm '^Decision: split locks harm'
t_ok "harm run: cyclictest starved to 25 % of its periods is called out" has_verdict harm 'completed 25 % of its periods .*aligned control: 100 %.*starved it'
t_ok "noharm-like cycles: 100 % everywhere is 'not starved'" sh -c "'$T_ROOT/tests/fake-run.sh' '$T_TMP/full' aligned:100:10:2:completed split-off:100:10:2:completed && '$STATS' '$T_TMP/full' | jq -e '[.verdicts[] | test(\"it was not starved\")] | any'"

# Run "noharm": split-off like aligned.
"$FAKE" "$T_TMP/noharm" baseline:100:10:3:none aligned:100:10:3:completed \
	split-off:100:10:3:completed split-on:100:10:3:sigbus:0
"$STATS" "$T_TMP/noharm" >"$T_TMP/noharm.json"
t_ok "noharm run: 'did not significantly change'" has_verdict noharm 'did not significantly change p99.9.*not significant'
t_ok "noharm run: decision says no latency reason" has_verdict noharm '^Decision: this run shows no significant split-lock harm'

# Run "uncured": detection kills the offender, latency stays high.
"$FAKE" "$T_TMP/uncured" baseline:100:10:3:none aligned:100:10:3:completed \
	split-off:100:60:3:completed split-on:100:60:3:sigbus:0
"$STATS" "$T_TMP/uncured" >"$T_TMP/uncured.json"
t_ok "uncured run: 'stayed above baseline ... significantly higher'" has_verdict uncured 'stayed above baseline.*, significantly higher\.$'
t_ok "uncured run: decision says investigate" has_verdict uncured '^Decision: detection killed the offender but latency did not return'

# Run "survived": the offender is not killed.
"$FAKE" "$T_TMP/survived" baseline:100:10:3:none aligned:100:10:3:completed \
	split-off:100:60:3:completed split-on:100:10:3:completed:5000
"$STATS" "$T_TMP/survived" >"$T_TMP/survived.json"
t_ok "survived run: 'the offender was not killed'" has_verdict survived 'offender was not killed \(load fates: completed x3\)'

# Plots and report.
cp_conf "$T_TMP/harm"
"$T_ROOT/bench/report.sh" "$T_TMP/harm" >/dev/null 2>"$T_TMP/report.err"
png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 5000 ]; }
svg() { grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }
for p in overlay ccdf maxrep hist-baseline hist-split-off; do
	t_ok "plot $p.png is a non-empty PNG" png "$T_TMP/harm/plots/$p.png"
	t_ok "plot $p.svg is an SVG" svg "$T_TMP/harm/plots/$p.svg"
done
t_ok "plots say 'emulated (QEMU TCG)'" grep -q 'emulated (QEMU TCG)' "$T_TMP/harm/plots/overlay.svg"
t_ok "report.md carries the verdicts" grep -q '^- Decision: split locks harm' "$T_TMP/harm/report.md"
t_ok "report.md has the summary table row for split-off" grep -q '^| split-off | 3/3 | 60000 |' "$T_TMP/harm/report.md"
t_ok "report.md links the plots" grep -q '(plots/overlay.png)' "$T_TMP/harm/report.md"
html() { grep -q '<table>' "$1" && grep -q '<li>Decision: split locks harm' "$1" && grep -q '<img alt="overlay" src="plots/overlay.png">' "$1" && tail -n 1 "$1" | grep -q '</html>'; }
t_ok "report.html carries the same tables, verdicts and plots" html "$T_TMP/harm/report.html"

# Compare.
mkdir -p "$T_TMP/res"
cp -r "$T_TMP/harm" "$T_TMP/res/a"
cp -r "$T_TMP/noharm" "$T_TMP/res/b"
"$FAKE" "$T_TMP/res/small" baseline:100:10:2:none
cmp_rc() { # cmp_rc CODE WORD A B
	SLB_RESULTS=$T_TMP/res "$T_ROOT/bench/compare.sh" "$3" "$4" >"$T_TMP/c.out" 2>&1
	local rc=$?
	[ "$rc" = "$1" ] && grep -q -- "$2" "$T_TMP/c.out" || { echo "exit $rc"; cat "$T_TMP/c.out"; return 1; }
}
t_ok "compare a b: split-off B/A is significant" cmp_rc 0 '^| split-off | .* | yes |$' a b
t_ok "compare writes overlay plots" png "$T_TMP/res/compare-a-vs-b/overlay-split-off.png"
t_ok "compare refuses mismatched scenario sets" cmp_rc 2 'differ in their scenario sets' a small
t_ok "compare refuses an unknown run id, listing the runs" cmp_rc 2 "B='nosuch' is not a run id.*(runs: a b small" a nosuch
t_ok "compare without A names what is needed" cmp_rc 2 'A is required' '' b
