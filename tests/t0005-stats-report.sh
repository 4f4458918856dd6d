#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Statistics, plots, report and compare on synthetic runs (tests/fake-run.sh)
# with known distributions: the rep is the unit (exact rank tests and
# Hodges-Lehmann intervals over reps; with too few reps no interval is
# printed at all), missed periods are counted back in (coordinated
# omission), "within x1.2" needs an equivalence test; each verdict
# sentence follows the numbers (crafted runs flip them); plots are real
# PNG/SVG files; compare rejects bad input.
. "$(dirname "$0")/lib.sh"
FAKE=$T_ROOT/tests/fake-run.sh
STATS=$HOSTBIN/slb-stats
cp_conf() { cp "$T_ROOT/rt-config/scenarios.conf" "$1/"; }

# Run "harm": split-off 6x the spread of the others; detection cures it.
"$FAKE" "$T_TMP/harm" baseline:100:10:6:none aligned:100:10:6:completed \
	split-off:100:60:6:completed:0:0:25 split-on:100:10:6:sigbus:0 aligned-on:100:10:6:completed
"$STATS" "$T_TMP/harm" >"$T_TMP/harm.json"
cmpf() { jq -e --arg l "$2" ".comparisons[] | select(.label == \$l) | $3" "$T_TMP/$1.json"; }
has_verdict() { jq -e --arg re "$2" '[.verdicts[] | test($re)] | any' "$T_TMP/$1.json" || { jq '.verdicts' "$T_TMP/$1.json"; return 1; }; }
t_ok "identical histograms: not significant, p = 1, ratio 1, equivalent" cmpf harm "aligned / baseline" '.significant == false and .p == 1 and .ratio_p999 == 1 and .equivalent'
t_ok "shifted histograms, rep k of both with seed k: paired, 6 pairs all one side, exact signed-rank p = 2/64 = 0.03125" cmpf harm "split-off / aligned" '.significant == true and .design == "paired" and .pairs == 6 and (.p - 0.03125 | fabs) < 1e-9 and .ratio_p999 > 2'
# Seeds that do not match (or are unknown): the reps are not pairs, and the
# unpaired analysis (exact Mann-Whitney over 6 vs 6 reps, least p 2/924) says why.
cp -r "$T_TMP/harm" "$T_TMP/unpaired"
for r in 1 2 3 4 5 6; do sed -i "s/^seed=$r\$/seed=1$r/" "$T_TMP/unpaired/aligned/rep$r/rep.info"; done
"$STATS" "$T_TMP/unpaired" >"$T_TMP/unpaired.json"
t_ok "seeds that do not match: unpaired, exact rank test p = 2/924, and the reason" cmpf unpaired "split-off / aligned" '.design == "unpaired" and (.design_note | test("seeds do not match")) and (.p - 2/924 | fabs) < 1e-6 and .reps_a == 6'
t_ok "... and the verdict names the unpaired test and why" has_verdict unpaired '^split-off: .*exact rank test over 6 vs 6 reps, unpaired: the seeds do not match'
sed -i '/^seed=/d' "$T_TMP"/unpaired/*/rep*/rep.info
"$STATS" "$T_TMP/unpaired" >"$T_TMP/unpaired.json"
t_ok "no seeds recorded (a wall-clock run): unpaired, saying so" cmpf unpaired "split-off / aligned" '.design == "unpaired" and (.design_note | test("seeds not recorded"))'
rm "$T_TMP/unpaired/aligned/rep6/rep.info" "$T_TMP/unpaired/aligned/rep6/files/hist.txt"
"$STATS" "$T_TMP/unpaired" >"$T_TMP/unpaired.json"
t_ok "reps that differ in number: unpaired, saying so" cmpf unpaired "split-off / aligned" '.design == "unpaired" and (.design_note | test("differ in number \\(6 vs 5\\)"))'
t_ok "the p99.9 ratio lies inside its 95 % CI" cmpf harm "split-off / aligned" '.ratio_p999_ci[0] <= .ratio_p999 and .ratio_p999 <= .ratio_p999_ci[1]'
t_ok "no bootstrap 'CI' of pooled samples is printed per scenario any more" jq -e '[.scenarios[] | has("p999_ci")] | any | not' "$T_TMP/harm.json"
# With 3 pairs no exact 95 % interval exists: none may be printed
# (the old bootstrap printed the range of the reps as one).
"$FAKE" "$T_TMP/few" aligned:100:10:3:completed split-off:100:60:3:completed
"$STATS" "$T_TMP/few" >"$T_TMP/few.json"
t_ok "3 pairs: no 95 % CI, not significant (exact signed-rank p = 2/8)" cmpf few "split-off / aligned" '.ratio_p999_ci == [null, null] and .significant == false and (.p - 0.25 | fabs) < 1e-9'
t_ok "3 pairs: the verdict says the pairs are too few for an interval" has_verdict few '3 pairs: too few for a 95 % interval'
t_ok "3 pairs: inconclusive, with the pairs it would take" has_verdict few 'inconclusive: neither a difference nor equivalence within x1.2 shown; about [0-9]+ pairs would detect x1.2 and [0-9]+ would show equivalence'
# Coordinated omission: one rep with wake-ups of 3500 us at a 1000 us period
# hides 3 periods each (2500, 1500 and 500 us late).
mkdir -p "$T_TMP/co/late/rep1/files"
echo late >"$T_TMP/co/scenarios.list"
printf 'outcome=ok\nload_fate=none\nct_interval_us=1000\n' >"$T_TMP/co/late/rep1/rep.info"
printf '# Histogram\n000010 000990\n003500 000010\n# Total: 000001000\n# Max Latencies: 03500\n# Histogram Overflows: 00000\n' >"$T_TMP/co/late/rep1/files/hist.txt"
"$STATS" "$T_TMP/co" >"$T_TMP/co.json"
t_ok "coordinated omission as HdrHistogram: 10 wake-ups 3500 us late add 20 periods (2500, 1500 us; not 500, under one interval)" jq -e '.scenarios[0].per_rep[0].missed_periods == 20 and .scenarios[0].corrected.samples == 1020' "$T_TMP/co.json"
t_ok "... which move p99 from 10 us (raw: the late ones are 1 % of what was measured) to 2500 us" jq -e '.scenarios[0].p99_us == 10 and .scenarios[0].corrected.p99_us == 2500' "$T_TMP/co.json"
# Per rep p50 too, raw and corrected: 100 wake-ups at 10 us and 10 of 100 ms
# at a 1 ms period; the 990 missed periods (1000 to 99000 us, 10 of each)
# move the median from 10 us to 45000 (the 550th of 1100).
mkdir -p "$T_TMP/co50/late/rep1/files"
echo late >"$T_TMP/co50/scenarios.list"
printf 'outcome=ok\nload_fate=none\nct_interval_us=1000\n' >"$T_TMP/co50/late/rep1/rep.info"
printf '# Histogram\n000010 000100\n100000 000010\n# Total: 000000110\n# Max Latencies: 100000\n# Histogram Overflows: 00000\n' >"$T_TMP/co50/late/rep1/files/hist.txt"
t_ok "per rep p50, raw (10 us) and corrected for coordinated omission (45000 us)" sh -c "out=\$('$STATS' '$T_TMP/co50') && [ -n \"\$out\" ] && printf '%s\\n' \"\$out\" | jq -e '.scenarios[0].per_rep[0] | .p50_us == 10 and .co_p50_us == 45000 and .missed_periods == 990'"
t_ok "harm run: 'raised p99.9 ... over the aligned control'" has_verdict harm '^split-off: the load on the housekeeping vCPU\(s\) raised p99.9 latency .* x[0-9.]+ \(95 % CI'
t_ok "harm run: offender died of SIGBUS, latency shown within x1.2 of baseline" has_verdict harm 'died of SIGBUS in 6 of 6 reps.*stayed within x1.2 of baseline.*equivalent within x1.2'
t_ok "harm run: decision states what was measured and what was not" has_verdict harm '^Decision: in this run the split-lock load raised .* over aligned, .* enabling split_lock_detect removed the measured harm. .*What detection cost a split-lock-free load \(aligned-on\): x1.00 .*equivalent within x1.2.* Not measured here: what detection does to an RT task'
t_ok "harm run: missing periods are called coordinated omission, not extra starvation" has_verdict harm 'measured 25 % of its periods .*\(aligned: 100 %\).*coordinated omission'
t_ok "noharm-like cycles: 100 % everywhere is 'not starved'" sh -c "'$T_ROOT/tests/fake-run.sh' '$T_TMP/full' aligned:100:10:2:completed split-off:100:10:2:completed && out=\$('$STATS' '$T_TMP/full') && [ -n \"\$out\" ] && printf '%s\\n' \"\$out\" | jq -e '[.verdicts[] | test(\"it was not starved\")] | any'"

# Verdicts come from the roles in the run's scenarios.conf, whatever the
# scenarios are called.
"$FAKE" "$T_TMP/named" quiet:100:10:6:none noisy:100:60:6:completed guarded:100:10:6:sigbus:0
cat >"$T_TMP/named/scenarios.conf" <<'CONF'
quiet   | split_lock_detect=off | none | | - | none | the floor
noisy   | split_lock_detect=off | slb-load:split | | quiet | harm | bus locks
guarded | split_lock_detect | slb-load:split | | quiet | kill | detection on
CONF
"$STATS" "$T_TMP/named" >"$T_TMP/named.json"
t_ok "custom names: comparisons from the roles" cmpf named "noisy / quiet" '.significant'
t_ok "custom names: a harm verdict for 'noisy'" has_verdict named '^noisy: the load .* raised p99.9 latency .* over quiet'
t_ok "custom names: a kill verdict for 'guarded'" has_verdict named '^guarded: the offender died of SIGBUS in 6 of 6 reps'
t_ok "custom names: a decision" has_verdict named '^Decision: in this run the split-lock load raised .* over quiet'
rm "$T_TMP/named/scenarios.conf"
t_ok "no roles: no comparisons, and the verdicts say why" sh -c "out=\$('$STATS' '$T_TMP/named') && [ -n \"\$out\" ] && printf '%s\\n' \"\$out\" | jq -e '(.comparisons | length) == 0 and (.verdicts[0] | test(\"no roles\"))'"

# Run "noharm": split-off like aligned.
"$FAKE" "$T_TMP/noharm" baseline:100:10:6:none aligned:100:10:6:completed \
	split-off:100:10:6:completed split-on:100:10:6:sigbus:0 aligned-on:100:10:6:completed
"$STATS" "$T_TMP/noharm" >"$T_TMP/noharm.json"
t_ok "noharm run: 'did not significantly change'" has_verdict noharm 'did not significantly change p99.9.*(equivalent within x1.2|no difference shown)'
t_ok "noharm run: decision says no latency reason" has_verdict noharm '^Decision: this run shows no significant split-lock harm'

# Run "uncured": detection kills the offender, latency stays high.
"$FAKE" "$T_TMP/uncured" baseline:100:10:6:none aligned:100:10:6:completed \
	split-off:100:60:6:completed split-on:100:60:6:sigbus:0
"$STATS" "$T_TMP/uncured" >"$T_TMP/uncured.json"
t_ok "uncured run: 'stayed above baseline ... significantly higher'" has_verdict uncured 'stayed above baseline.*, significantly higher\. The harm before the kill'
t_ok "uncured run: decision says investigate" has_verdict uncured '^Decision: detection killed the offender but latency did not return'

# Run "survived": the offender is not killed.
"$FAKE" "$T_TMP/survived" baseline:100:10:6:none aligned:100:10:6:completed \
	split-off:100:60:6:completed split-on:100:10:6:completed:5000
"$STATS" "$T_TMP/survived" >"$T_TMP/survived.json"
t_ok "survived run: 'the offender was not killed'" has_verdict survived 'offender was not killed \(load fates: completed x6\)'
t_ok "survived run: the decision does not claim a kill" has_verdict survived '^Decision: split locks harmed .* the offender was not killed'

# Plots and report.
cp_conf "$T_TMP/harm"
"$T_ROOT/bench/report/report.sh" "$T_TMP/harm" >/dev/null 2>"$T_TMP/report.err"
for p in overlay ccdf maxrep summary pairs hist-baseline hist-split-off; do
	t_ok "plot $p.png is a non-empty PNG" t_is_png "$T_TMP/harm/plots/$p.png" 5000
	t_ok "plot $p.svg is an SVG" t_is_svg "$T_TMP/harm/plots/$p.svg"
done
zero_filled() { # every bin from 0 on, one width, zeros kept, the same rows for all scenarios
	local d=$T_TMP/harm/plots/data
	awk 'NR > 1 { if ($1 != (NR - 2) * w) { print "gap at", $1; exit 1 } if ($2 == 0) z++ }
		END { if (!z) { print "no zero bins"; exit 1 } }' w="$(awk 'NR == 2 { print $6 }' "$d/scenarios.dat")" "$d/split-off.hist" &&
		[ "$(wc -l <"$d/split-off.hist")" = "$(wc -l <"$d/baseline.hist")" ]
}
t_ok "histogram data: zero-filled bins of one width and one range for all scenarios" zero_filled
t_ok "plots say 'emulated (QEMU TCG)'" grep -q 'emulated (QEMU TCG)' "$T_TMP/harm/plots/overlay.svg"
t_ok "report.md carries the verdicts" grep -q '^- split-off: the load on the housekeeping vCPU(s) raised' "$T_TMP/harm/report.md"
# The report opens with the decision: its first section, one paragraph
# that names the platform first, then the headline per harm scenario
# (against its own control only) and the summary plot, before any table.
head_first() {
	local f=$T_TMP/harm/report.md
	[ "$(grep -m1 '^## ' "$f")" = "## Decision" ] &&
		grep -A2 -x '## Decision' "$f" | grep -q '^Emulated, not measured on hardware: .* In this run the split-lock load raised' &&
		grep -qx -- '- \*\*split-off\*\* against aligned: p99.9 x[0-9.]* (95 % CI .*), significantly higher' "$f" &&
		[ "$(grep -c '^- \*\*' "$f")" = 1 ] &&
		[ "$(grep -n -m1 'plots/summary.png' "$f" | cut -d: -f1)" -lt "$(grep -n -m1 '^|' "$f" | cut -d: -f1)" ] &&
		[ "$(grep -m1 -n '^## Caveats' "$f" | cut -d: -f1)" -gt "$(grep -m1 -n '^## Comparisons' "$f" | cut -d: -f1)" ] &&
		! grep -q '^- Decision:' "$f"
}
t_ok "report.md opens with the decision (platform first), the headline and the summary plot; tables after" head_first
t_ok "report.md has the summary table row for split-off" grep -q '^| split-off | 6/6 | 120000 |' "$T_TMP/harm/report.md"
t_ok "report.md lists the per-rep corrected p99.9" grep -q '^- split-off: [0-9]*, [0-9]*, [0-9]*, [0-9]*, [0-9]*, [0-9]*$' "$T_TMP/harm/report.md"
t_ok "report.md links the plots" grep -q '(plots/overlay.png)' "$T_TMP/harm/report.md"
html() { grep -q '<table>' "$1" && grep -q '<p>Emulated, not measured on hardware: .* In this run the split-lock load raised' "$1" && grep -q '<img src="plots/overlay.png" alt="overlay" />' "$1" && tail -n 1 "$1" | grep -q '</html>'; }
t_ok "report.html (cmark-gfm) carries the same tables, verdicts and plots" html "$T_TMP/harm/report.html"
t_ok "... nothing of report.md lost as raw HTML or turned into a quote" sh -c "! grep -q -e 'raw HTML omitted' -e '<blockquote>' '$T_TMP/harm/report.html' && grep -q 'rep&lt;k&gt;/cmdline' '$T_TMP/harm/report.html'"

# Compare.
mkdir -p "$T_TMP/res"
cp -r "$T_TMP/harm" "$T_TMP/res/a"
cp -r "$T_TMP/noharm" "$T_TMP/res/b"
"$FAKE" "$T_TMP/res/small" baseline:100:10:6:none
cmp_rc() { # cmp_rc CODE WORD A B
	SLB_RESULTS=$T_TMP/res "$T_ROOT/bench/experiment/compare.sh" "$3" "$4" >"$T_TMP/c.out" 2>&1
	local rc=$?
	[ "$rc" = "$1" ] && grep -q -- "$2" "$T_TMP/c.out" || { echo "exit $rc"; cat "$T_TMP/c.out"; return 1; }
}
t_ok "compare a b: split-off B/A is significant" cmp_rc 0 '^| split-off | .* | yes |$' a b
t_ok "compare: the p column is p99.9's and names the design (runs of one seed scheme pair up)" grep -q '^| split-off | .* | 0.03125 (paired) | yes |$' "$T_TMP/c.out"
t_ok "compare writes overlay plots" t_is_png "$T_TMP/res/compare-a-vs-b/overlay-split-off.png"
t_ok "compare a small: the scenarios both hold, the others named" cmp_rc 0 'only in A: aligned split-off split-on aligned-on; only in B: none$' a small
t_ok "... baseline compared" grep -q '^| baseline | ' "$T_TMP/c.out"
t_ok "... not the others" sh -c "! grep -q '^| split-off | ' '$T_TMP/c.out'"
t_ok "compare refuses an unknown run id, listing the runs" cmp_rc 2 "B='nosuch' is not a run id.*(runs: a b small" a nosuch
t_ok "compare without A names what is needed" cmp_rc 2 'A is required' '' b
"$FAKE" "$T_TMP/res/other" other:100:10:6:none
t_ok "compare refuses runs with nothing in common" cmp_rc 2 'differ in their scenario sets, have none in common and none judged against the other' a other
# One run per boot: an off boot's and a fatal boot's scenarios (none in
# common) compared across, each against its control in the other run.
"$FAKE" "$T_TMP/res/offboot" baseline:100:10:6:none aligned:100:10:6:completed split-off:100:60:6:completed
"$FAKE" "$T_TMP/res/fatalboot" split-on:100:10:6:sigbus aligned-on:100:10:6:completed
t_ok "compare across boots: split-on (B) against baseline (A)" cmp_rc 0 '^| split-on / baseline | 6 vs 6 | ' offboot fatalboot
t_ok "... aligned-on (B) against aligned (A)" grep -q '^| aligned-on / aligned | 6 vs 6 | ' "$T_TMP/c.out"
t_ok "... not split-off against aligned (both in A)" sh -c "! grep -q '^| split-off / aligned' '$T_TMP/c.out'"

# Unusable reps: a histogram holding another number of samples than
# cyclictest counted cycles, and a rep that ended ok without a histogram,
# are left out and named; the tools exit 1 with their output written, and
# the plots and report go on with a warning.
"$FAKE" "$T_TMP/unus" aligned:100:10:6:completed split-off:100:60:6:completed
sed -i 's/^ct_cycles=20000$/ct_cycles=19999/' "$T_TMP/unus/split-off/rep2/rep.info"
rm "$T_TMP/unus/aligned/rep3/files/hist.txt"
"$STATS" "$T_TMP/unus" >"$T_TMP/unus.json" 2>"$T_TMP/unus.err"
echo $? >"$T_TMP/unus.rc"
t_ok "unusable reps: slb-stats exits 1" grep -qx 1 "$T_TMP/unus.rc"
t_ok "... naming the histogram that disagrees with cyclictest's cycle count" grep -q 'split-off/rep2/files/hist.txt: 20000 samples (# Total plus overflows), but cyclictest counted 19999 cycles (rep not pooled)' "$T_TMP/unus.err"
t_ok "... and the one that is missing" grep -q 'aligned/rep3/files/hist.txt: No such file or directory (the guest run ended ok without it' "$T_TMP/unus.err"
t_ok "... and still writes the statistics of the other reps" jq -e '[.scenarios[] | [.reps_ok, .reps_unusable]] == [[5, 1], [5, 1]]' "$T_TMP/unus.json"
t_ok "slb-summary exits 1 on them too" t_expect_code 1 "$HOSTBIN/slb-summary" "$T_TMP/unus"
plots_warn() { "$T_ROOT/bench/report/plots.sh" "$T_TMP/unus" >/dev/null 2>"$T_TMP/unus.plots.err" && grep -q 'warning: slb-stats found unusable reps' "$T_TMP/unus.plots.err" && jq -e '.scenarios[1].reps_unusable == 1' "$T_TMP/unus/stats.json"; }
t_ok "plots go on with a warning, stats.json written" plots_warn
# A quantile past the histogram's limit (among the overflows) is reported
# as such, not as a latency.
mkdir -p "$T_TMP/lim/over/rep1/files"
echo over >"$T_TMP/lim/scenarios.list"
printf 'outcome=ok\nload_fate=none\nct_cycles=1000\nct_interval_us=100000\n' >"$T_TMP/lim/over/rep1/rep.info"
printf '# Histogram\n000010 000990\n# Total: 000000990\n# Max Latencies: 150000\n# Histogram Overflows: 00010\n' >"$T_TMP/lim/over/rep1/files/hist.txt"
"$STATS" "$T_TMP/lim" >"$T_TMP/lim.json"
t_ok "p99.9 past the histogram limit: flagged per rep and per scenario, p99 is not" jq -e '.scenarios[0].per_rep[0].co_p999_beyond_limit == true and .scenarios[0].beyond_limit == ["p99.9"]' "$T_TMP/lim.json"
t_ok "the summary prints it as '> limit'" sh -c "'$HOSTBIN/slb-summary' '$T_TMP/lim' | grep -q '^over .* 10 *> limit *150000'"
t_ok "per-rep histogram curves: one column per usable rep" grep -qx 'bin_start_us rep1 rep3 rep4 rep5 rep6' "$T_TMP/unus/plots/data/split-off.reps"
t_ok "... each holding all of its rep's samples" awk 'NR > 1 { s += $2 } END { exit s != 20000 }' "$T_TMP/unus/plots/data/split-off.reps"
t_ok "... drawn in the scenario's histogram plot" t_is_png "$T_TMP/unus/plots/hist-split-off.png"
# The RT task itself taking split locks with detection on (role rtkill).
"$FAKE" "$T_TMP/harmrt" baseline:100:10:6:none aligned:100:10:6:completed \
	split-off:100:60:6:completed split-on:100:10:6:sigbus:0 aligned-on:100:10:6:completed rt-split-on:100:10:6:sigbus:0
"$STATS" "$T_TMP/harmrt" >"$T_TMP/harmrt.json"
t_ok "rtkill: the RT task's own death is stated" has_verdict harmrt '^rt-split-on: the RT task itself took a split lock with detection on and died of SIGBUS in 6 of 6 reps'
t_ok "rtkill: the decision names it as the risk and no longer lists it as unmeasured" has_verdict harmrt 'What it risks: an RT task that itself takes a split lock is killed \(rt-split-on, 6 of 6 reps\)\.$'
# The #DB rate limit (role ratelimit): the offender's rate is stated.
"$FAKE" "$T_TMP/rl" baseline:100:10:6:none split-ratelimit:100:10:6:completed:105
sed -i 's/^load_end_ms=12$/load_end_ms=10000/' "$T_TMP"/rl/split-ratelimit/rep*/rep.info
"$STATS" "$T_TMP/rl" >"$T_TMP/rl.json"
t_ok "ratelimit: the offender's split locks per second are stated" has_verdict rl '^split-ratelimit: the offender survived \(load fates: completed x6\) and was held to 10.5 split locks per second'
t_ok "ratelimit, a run without the buslock counter: #DB traps said to be uncounted" has_verdict rl 'split locks per second \(median over reps; bus-lock #DB traps are not counted as #AC traps\)'
t_ok "... and the summary gives sld_buslock null (not measured) for it" jq -e '[.scenarios[] | select(.name == "split-ratelimit") | .reps[].sld_buslock] | unique == [null]' <("$HOSTBIN/slb-summary" --json "$T_TMP/rl")
for i in 1 2 3 4 5 6; do echo "sld_buslock=$((100 + i))" >>"$T_TMP/rl/split-ratelimit/rep$i/rep.info"; done
"$STATS" "$T_TMP/rl" >"$T_TMP/rl.json"
t_ok "ratelimit with the buslock counter: the #DB traps per rep are stated" has_verdict rl 'split locks per second \(median over reps; 104 bus-lock #DB traps per rep\)'
t_ok "... and passed on by the summary (JSON and CSV)" sh -c "out=\$('$HOSTBIN/slb-summary' --json '$T_TMP/rl') && [ -n \"\$out\" ] && printf '%s\\n' \"\$out\" | jq -e '[.scenarios[] | select(.name == \"split-ratelimit\") | .reps[].sld_buslock] == [101, 102, 103, 104, 105, 106]' >/dev/null && '$HOSTBIN/slb-summary' --csv '$T_TMP/rl' | grep -q '^split-ratelimit,1,ok,completed,105,0,101,'"
maxpoint() { [ "$(awk '!/^#/ { print $1 }' "$T_TMP/unus/plots/data/split-off.max")" = "$(jq '.scenarios[1].max_us' "$T_TMP/unus/stats.json")" ]; }
t_ok "1-CDF: the largest sample is marked (its own point, at the pooled max)" maxpoint
rep_unus() { "$T_ROOT/bench/report/report.sh" "$T_TMP/unus" >/dev/null 2>&1; grep -q '^| split-off | 5/6 (1 unusable) |' "$T_TMP/unus/report.md"; }
t_ok "the report counts a scenario's unusable reps" rep_unus
echo '{"params": {"clock": "virtual", "quantum_ns": 10000, "bus_lock_ns": 1000}}' >"$T_TMP/lim/manifest.json"
rep_virtual() { "$T_ROOT/bench/report/report.sh" "$T_TMP/lim" >/dev/null 2>&1 && grep -q 'virtual time: every instruction costs 1 ns' "$T_TMP/lim/report.md" && grep -q 'modelled bus-lock time (1000 ns)' "$T_TMP/lim/report.md" && ! grep -q 'wall-clock time' "$T_TMP/lim/report.md"; }
t_ok "a virtual-clock run's caveats are the virtual mode's" rep_virtual
t_ok "... and its per-rep list marks a p99.9 past the limit with '>'" grep -q '^- over: >150000' "$T_TMP/lim/report.md"
t_ok "... which report.html keeps as text (the '>', and the '*' of too few samples not taken for emphasis)" grep -q '<li>over: &gt;150000\*</li>' "$T_TMP/lim/report.html"
# More than 8 scenarios: the 9th repeats the 1st colour dashed, not solid.
"$FAKE" "$T_TMP/nine" $(for i in 1 2 3 4 5 6 7 8 9; do printf 's%d:100:10:1:completed ' "$i"; done)
# plot9_dashed SVG: the 9th curve's group draws with a dash array.
plot9_dashed() { sed -n '/id="gnuplot_plot_9"/,$p' "$1" | grep -m1 '<path' | grep -q stroke-dasharray || { echo "$1: curve 9 is solid"; return 1; }; }
dashed() { "$T_ROOT/bench/report/plots.sh" "$T_TMP/nine" >/dev/null 2>&1 && plot9_dashed "$T_TMP/nine/plots/overlay.svg" && plot9_dashed "$T_TMP/nine/plots/ccdf.svg"; }
t_ok "9 scenarios: overlay and 1-CDF draw the 9th dashed (no two curves alike)" dashed

# Equivalence only where the 1 us bins resolve it: at a 3 us floor the
# nearest values (2, 4) are x0.67 and x1.33, so "within x1.2" cannot be
# told; at 6 us the next bins (5, 7) are inside x1.2 and it can.
"$FAKE" "$T_TMP/floor" base3:3:0:6:none same3:3:0:6:completed base6:6:0:6:none same6:6:0:6:completed
cat >"$T_TMP/floor/scenarios.conf" <<'CONF'
base3 | split_lock_detect=off | none | | - | none | a 3 us floor
same3 | split_lock_detect | slb-load:aligned | | base3 | cost | the same at 3 us
base6 | split_lock_detect=off | none | | - | none | a 6 us floor
same6 | split_lock_detect | slb-load:aligned | | base6 | cost | the same at 6 us
CONF
"$STATS" "$T_TMP/floor" >"$T_TMP/floor.json"
t_ok "3 us floor, identical reps: equivalence 'not resolvable', not 'equivalent'" cmpf floor "same3 / base3" '.equivalent == false and .resolvable == false and .equivalence == "not resolvable" and .floor_us == 3'
t_ok "... and the verdict says so instead of a verdict on equivalence" has_verdict floor '^same3: .*by x1 \(all 6 pairs: 3 against 3 us, same seed\), no difference shown; equivalence within x1.2 is not resolvable at this resolution \(1 us bins at 3 us: one bin is x1.33\)'
t_ok "6 us floor: resolvable, equivalent within x1.2" cmpf floor "same6 / base6" '.equivalent == true and .resolvable == true'
# Deterministic ties (every pair the same two values, as the virtual clock
# gives): said in words, "all 6 pairs: 9 against 3 us", not as an interval
# of 3.00-3.00. Medians one 1 us bin apart: named as one bin, not as
# "significantly higher", whatever the exact test says (p = 2/64 here).
"$FAKE" "$T_TMP/tie" base3:3:0:6:none hot9:9:0:6:completed
cat >"$T_TMP/tie/scenarios.conf" <<'CONF'
base3 | split_lock_detect=off | none | | - | none | a 3 us floor
hot9 | split_lock_detect=off | slb-load:split | | base3 | harm | 9 us in every rep
CONF
"$STATS" "$T_TMP/tie" >"$T_TMP/tie.json"
t_ok "tie: the comparison's JSON says so (pairs, both values)" cmpf tie "hot9 / base3" '.tie == {"pairs": 6, "a_us": 3, "b_us": 9} and .one_bin == false'
t_ok "... and the verdict words it, without an interval" has_verdict tie '^hot9: the load .* raised p99.9 latency on the isolated vCPU x3 \(all 6 pairs: 9 against 3 us, same seed\) over base3\.$'
t_ok "no tie where the reps vary" cmpf harm "split-off / aligned" '.tie == null'
"$FAKE" "$T_TMP/bin" base3:3:0:6:none low4:4:0:6:completed
cat >"$T_TMP/bin/scenarios.conf" <<'CONF'
base3 | split_lock_detect=off | none | | - | none | a 3 us floor
low4 | split_lock_detect=off | none | | base3 | none | 4 us in every rep
CONF
"$STATS" "$T_TMP/bin" >"$T_TMP/bin.json"
t_ok "one bin apart: the JSON says so" cmpf bin "low4 / base3" '.one_bin == true and .significant == true'
t_ok "... and the verdict names one bin, not 'significantly higher'" has_verdict bin '^low4 against base3: p99.9 x1.33 \(all 6 pairs: 4 against 3 us, same seed\), one 1 us bin apart \(4 vs 3 us\): below the histogram.s resolution\.$'
t_ok "... and nothing says 'significantly'" jq -e '[.verdicts[] | test("significantly")] | any | not' "$T_TMP/bin.json"
# The tail beyond p99.9: 5 samples at 6 us in every rep of 20000 leave
# p99.9 at 3 us, but the max and the count above the control's max differ
# in all 6 pairs (p = 2/64).
"$FAKE" "$T_TMP/tail" quiet:3:0:6:none spiky:3:0:6:completed
for r in 1 2 3 4 5 6; do
	sed -i 's/^000003 020000$/000003 019995\n000006 000005/; s/^# Max Latencies: 00003$/# Max Latencies: 00006/' "$T_TMP/tail/spiky/rep$r/files/hist.txt"
done
cat >"$T_TMP/tail/scenarios.conf" <<'CONF'
quiet | split_lock_detect=off | none | | - | none | the floor
spiky | split_lock_detect | slb-load:aligned | | quiet | cost | rare spikes
CONF
"$STATS" "$T_TMP/tail" >"$T_TMP/tail.json"
t_ok "tail: p99.9 identical (x1, p = 1) while 5 samples per rep lie above the control's max 3 us" cmpf tail "spiky / quiet" '.ratio_p999 == 1 and .p == 1 and .tail.threshold_us == 3 and .tail.above_b == [5,5,5,5,5,5] and .tail.above_a == [0,0,0,0,0,0]'
t_ok "... tested paired like the quantiles: max and count p = 2/64, the tail differs" cmpf tail "spiky / quiet" '(.tail.p_max - 0.03125 | fabs) < 1e-9 and (.tail.p_above - 0.03125 | fabs) < 1e-9 and .tail.significant and .tail.design == "paired"'
t_ok "... and the 'no cost' verdict mentions it" has_verdict tail '^spiky: with detection on, .*beyond p99.9 \(above 3 us, quiet.s maximum\): max 6-6 us per rep vs 3-3 .* 5-5 samples above per rep vs 0-0 \(p = 0.031\): the tail is longer'
deadline_tail() { "$STATS" --deadline 5 "$T_TMP/tail" >"$T_TMP/deadline.json" && jq -e '.comparisons[0].tail | .threshold_us == 5 and .threshold_from == "DEADLINE_US" and .above_b == [5,5,5,5,5,5]' "$T_TMP/deadline.json"; }
t_ok "--deadline 5: the tail counts samples above the deadline instead" deadline_tail
t_ok "--deadline refuses a value that is not a number (exit 2, naming it)" t_refuses "--deadline 'soon'" "$STATS" --deadline soon "$T_TMP/tail"
# A comparison whose two scenarios have the same load and differ in the
# kernel: worded as the kernel's doing, not the load's.
"$FAKE" "$T_TMP/kern" fixed:100:10:6:completed unfixed:100:10:6:completed
cat >"$T_TMP/kern/scenarios.conf" <<'CONF'
fixed   | split_lock_detect=warn | slb-load:split | kernel.split_lock_mitigate=0 | -     | none | the series | vcpus=3
unfixed | split_lock_detect=warn | slb-load:split | kernel.split_lock_mitigate=0 | fixed | harm | the series without 0007 | vcpus=3,kernel=nofix
CONF
"$STATS" "$T_TMP/kern" >"$T_TMP/kern.json"
t_ok "same load, kernel differs: 'the kernel alone (the same load as ...)', not 'the load'" has_verdict kern '^unfixed: the kernel alone \(the same load as fixed; guest `vcpus=3,kernel=nofix` instead of `vcpus=3`\) did not significantly change p99.9'
t_ok "... while a different load is still 'the load on the housekeeping vCPU(s)'" has_verdict harm '^split-off: the load on the housekeeping vCPU\(s\) raised'
# Periods measured: 120000 of 120016 is 99.987 %, printed 99.99 %, never 100 %.
"$FAKE" "$T_TMP/round" aligned:100:10:6:completed split-off:100:10:6:completed
sed -i 's/^ct_expected=20000$/ct_expected=20016/' "$T_TMP/round/split-off/rep1/rep.info"
"$STATS" "$T_TMP/round" >"$T_TMP/round.json"
t_ok "99.987 % of periods measured is '99.99', not '100'" jq -e '.scenarios[1].cycles_pct_text == "99.99" and .scenarios[0].cycles_pct_text == "100"' "$T_TMP/round.json"
t_ok "... in the verdict" has_verdict round '^split-off: cyclictest measured 99.99 % of its periods on the isolated vCPU \(aligned: 100 %\)'
rep_round() { "$T_ROOT/bench/report/report.sh" "$T_TMP/round" >/dev/null 2>&1 && grep -q '^| split-off | 6/6 | .* | 99.99 % | ' "$T_TMP/round/report.md"; }
t_ok "... and in the report's table" rep_round
# The report says which design each comparison used, labels the p column
# as p99.9's, marks ties, and shows the tail.
t_ok "report: the comparisons table names the design, p99.9's exact test p and the tail" grep -q '^| ratio | design | reps | p99 (95 % CI) | p99.9 (95 % CI) | p99.9 exact test p | .* | tail beyond p99.9' "$T_TMP/round/report.md"
rep_floor() { "$T_ROOT/bench/report/report.sh" "$T_TMP/floor" >/dev/null 2>&1 && grep -q '^| same3 / base3 | paired | 6 pairs | .* | not resolvable at this resolution (3 us) | .* | ties: the exact interval is conservative |$' "$T_TMP/floor/report.md"; }
t_ok "report: 'not resolvable at this resolution' and the ties note" rep_floor
# A killed offender: the time before the kill was not measured; with no
# completed split lock the verdict says why that harm is nil.
t_ok "kill verdict: the harm before the kill was not measured, and why it is nil" has_verdict harm '^split-on: .*The harm before the kill was not measured \(cyclictest starts after the load.s warm-up.*\) and is nil: the #AC is a fault, raised before the locked access executes, so none of its split locks took the bus'
rep_tail() { "$T_ROOT/bench/report/report.sh" "$T_TMP/tail" >/dev/null 2>&1 && grep -qx -- '- spiky: 6, 6, 6, 6, 6, 6' "$T_TMP/tail/report.md" && grep -q '^| spiky / quiet | paired | 6 pairs | .* | max 6-6 vs 3-3 us (p 0.03125); above 3 us: 5-5 vs 0-0 (p 0.03125): differs |' "$T_TMP/tail/report.md"; }
t_ok "report: each rep's largest latency, and the tail's comparison" rep_tail
# The summary figure's data: each rep's corrected p99.9 and max, and per
# scenario its control's range and the p99.9 ratio with its interval.
sumdata() {
	local d=$T_TMP/harm/plots/data
	[ "$(awk '$2 == "split-off" { n++ } END { print n }' "$d/summary.dat")" = 6 ] &&
		[ "$(awk '$2 == "split-off" && $3 == 1 { print $4, $5 }' "$d/summary.dat")" = "$(jq -r '.scenarios[] | select(.name == "split-off") | .per_rep[0] | "\(.co_p999_us) \(.max_us)"' "$T_TMP/harm/stats.json")" ] &&
		awk '$2 == "split-off" { exit !($3 == "aligned" && $6 > 2 && $7 <= $6 && $6 <= $8 && $NF > 0) }' "$d/summary-scen.dat" &&
		awk '$2 == "baseline" { exit !($3 == "-" && $6 == "?") }' "$d/summary-scen.dat" &&
		grep -qx '!\[summary\](plots/summary.png)' "$T_TMP/harm/report.md"
}
t_ok "summary figure data: per rep p99.9 and max, the control's range and the ratio with its interval; linked in the report" sumdata
ratio_match() { [ "$(awk '$2 == "split-off" { print $6 }' "$T_TMP/harm/plots/data/summary-scen.dat")" = "$(jq -r '.comparisons[] | select(.label == "split-off / aligned") | .ratio_p999' "$T_TMP/harm/stats.json")" ]; }
t_ok "... the ratio is the comparison's p99.9 ratio" ratio_match
t_ok "1-CDF on a log latency axis" grep -q 'set logscale x' "$T_ROOT/plots/ccdf.gp"
# A run of RUNNER=slurm (manifest .runner, bench/report/report-runner.sh): the
# runner and each task Slurm ended without a result under Setup; the wall
# clock on Slurm warned about at the head (nodes differ), not the virtual.
"$FAKE" "$T_TMP/slurm" baseline:100:10:2:none aligned:100:10:2:completed
slurm_manifest() {
	jq -n --arg clock "$1" '{params: {clock: $clock, jobs: 2, runner: "slurm"}, runner: {kind: "slurm", array_job: "41", finish_job: "42", sbatch_opts: "",
		reps: [{scenario: "baseline", rep: 1, task: "41_0", node: "n1", state: "COMPLETED", reason: "None", exit_code: "0:0"},
		       {scenario: "aligned", rep: 1, task: "41_1", node: "n2", state: "NODE_FAIL", reason: "NodeDown", exit_code: "0:0"}]}}' >"$T_TMP/slurm/manifest.json"
}
slurm_manifest wall
"$T_ROOT/bench/report/report.sh" "$T_TMP/slurm" >/dev/null 2>&1
t_ok "a Slurm run's report names the job array and its nodes" grep -q '^- runner: Slurm, job array 41 (one task per rep, 2 at a time) on n1, n2, finished by job 42$' "$T_TMP/slurm/report.md"
t_ok "... and each task Slurm ended without a result, with its state and reason" grep -q 'aligned rep 1 (task 41_1 on n2): NODE_FAIL, reason NodeDown, exit 0:0' "$T_TMP/slurm/report.md"
t_ok "... the wall clock on Slurm: a warning at the head (2 nodes)" grep -q '^\*\*Warning: wall clock on Slurm.\*\* The reps ran on 2 node(s) (n1, n2)' "$T_TMP/slurm/report.md"
slurm_manifest virtual
"$T_ROOT/bench/report/report.sh" "$T_TMP/slurm" >/dev/null 2>&1
t_ok "... the virtual clock on Slurm: no warning" sh -c "grep -q '^- runner: Slurm' '$T_TMP/slurm/report.md' && ! grep -q 'Warning: wall clock on Slurm' '$T_TMP/slurm/report.md'"

# The report (with its plots) asks jq for the manifest's fields at once,
# not one a question: a jq costs some 17 ms of CPU to start, and it made
# 16 calls on the manifest here, 10 now (the blocks it renders); and it
# renders the blocks of stats.json with one jq, not nine.
cp -r "$T_TMP/harm" "$T_TMP/harm-jq"
rm -f "$T_TMP/harm-jq/report.md"
n=$(t_jq_calls "$T_TMP/harm-jq.log" "$T_ROOT/bench/report/report.sh" "$T_TMP/harm-jq")
rc=$?
mfq=$(grep -c 'manifest.json' "$T_TMP/harm-jq.log")
t_ok "the report (the same as without the counting, exit 0) reads the manifest with at most 10 jq (it did with $mfq of $n)" sh -c "[ '$rc' = 0 ] && [ '$mfq' -le 10 ] && tail -n +2 '$T_TMP/harm/report.md' >'$T_TMP/h1' && tail -n +2 '$T_TMP/harm-jq/report.md' >'$T_TMP/h2' && cmp -s '$T_TMP/h1' '$T_TMP/h2' || { grep manifest.json '$T_TMP/harm-jq.log' | cut -c1-100; exit 1; }"
stq=$(grep -c 'stats.json' "$T_TMP/harm-jq.log")
t_ok "... and renders stats.json with one (it did with $stq; it took one a block, nine)" sh -c "[ '$stq' = 1 ] || { grep stats.json '$T_TMP/harm-jq.log' | cut -c1-100; exit 1; }"
