#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A study under faults says what happened and loses nothing it finished:
# an emulator that does not run or refuses a guest stops it before the
# first rep; Ctrl-C keeps the finished reps and --resume finishes the run,
# its histograms byte for byte those of a run that was not interrupted
# (virtual clock); a QEMU killed mid-rep leaves the rep's reason; a
# scenario a comparison needs without a usable rep, or a report that
# fails, ends in exit 1 naming it, "no data" instead of numbers; a results
# directory that fills up stops the study with the finished reps kept.
# Eleven 3 s guest runs or fewer, and one killed a second in. Their
# loads run at 1000 ops a second, not flat out: what is checked here is
# what the study keeps and says, and a flat-out load's guest costs twice
# the host time of an idle one.
. "$(dirname "$0")/lib.sh"
# Its guests run the all-stall model (no modelled cache to look up): what
# is checked is what the study keeps and says, which no figure of the
# calibrated model changes, and a calibrated guest costs x1.7 the host time.
export SLB_BUS_LOCK_MODEL=all
t_require_guest "study fault tests"
res=$T_TMP/res
study=("$T_ROOT/bench/study.sh" --duration 3 --jobs 1 --load-rate 1000 --results "$res")
real_qemu=$(command -v "${SLB_QEMU:-qemu-system-x86_64}")
mkdir -p "$T_TMP/bin"
# until_seen FILE PATTERN: wait (at most 5 min: a rep takes 10-40 s of
# host time) until FILE shows PATTERN.
until_seen() {
	for _ in $(seq 1 1500); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done
	return 1
}

# Before the first rep: an emulator that does not run (exit 1), a guest
# QEMU refuses (exit 2); nothing is left behind either way.
SLB_QEMU=/bin/false "${study[@]}" --scenarios baseline --reps 1 --id f0 >"$T_TMP/f0.out" 2>&1
rc=$?
t_ok "an emulator that does not run: exit 1 before any rep, naming it" sh -c "[ $rc = 1 ] &&
	grep -q \"the emulator '/bin/false' does not run\" '$T_TMP/f0.out' && ! grep -q 'starting baseline' '$T_TMP/f0.out' || { cat '$T_TMP/f0.out'; exit 1; }"
t_ok "... and nothing is kept" sh -c "[ ! -e '$res/f0' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null"
t_ok "a CPU model QEMU refuses: exit 2, one line naming it" t_refuses "NoSuchModel" env SLB_CPU=NoSuchModel "${study[@]}" --scenarios baseline --reps 1 --id f1
t_ok "... a guest QEMU refuses: exit 2 naming the CPU model, nothing kept" sh -c "grep -q 'scenario baseline: its guest is refused' '$T_TMP/refuses.err' && [ ! -e '$res/f1' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null"

# Ctrl-C a second into the second rep: the first is kept, the one under
# way is not.
env --default-signal=INT "${study[@]}" --scenarios baseline,aligned --reps 1 --id i >"$T_TMP/i.out" 2>&1 &
pid=$!
until_seen "$T_TMP/i.out" 'starting aligned rep 1/1'
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
inc=$res/.incomplete-i
t_ok "Ctrl-C: exit 130, the finished rep kept for resume" sh -c "[ $rc = 130 ] && grep -q \"1 of 2 reps kept in $inc; 'make bench RESUME=i'\" '$T_TMP/i.out' || { tail '$T_TMP/i.out'; exit 1; }"
t_ok "... the recorded rep is there, no half rep" sh -c "[ -f '$inc/baseline/rep1/rep.info' ] && [ ! -e '$inc/aligned/rep1' ]"
no_qemu() { ! pgrep -f -- "$inc" >/dev/null; }
t_ok "... no QEMU of its own is left" no_qemu
t_ok "--resume with a parameter that differs: exit 2, one line" t_refuses "duration" "${study[@]}" --resume i --duration 4
t_ok "--resume refuses a parameter that differs, naming both values" grep -q "'4' here, '3' in the run" "$T_TMP/refuses.err"
t_ok "--resume of an unknown run: exit 2, one line" t_refuses "nosuch" "${study[@]}" --resume nosuch
t_ok "... an unknown run, naming the runs it could resume" grep -q "allowed: i" "$T_TMP/refuses.err"
sed 's/^aligned /aligned  /' "$T_ROOT/rt-config/scenarios.conf" >"$T_TMP/changed.conf"
t_ok "--resume under a changed scenario file: exit 2, one line" t_refuses "scenario file" env SLB_SCENARIO_FILE="$T_TMP/changed.conf" "${study[@]}" --resume i
t_ok "... and nothing it refused touched the run" sh -c "[ -f '$inc/baseline/rep1/rep.info' ] && [ ! -e '$res/i' ]"

# A QEMU killed (SIGKILL) a second into every aligned rep (the job file's
# path names the scenario): the comparison aligned/baseline has no data.
# This study also meets the interrupted run above, and keeps it.
cat >"$T_TMP/bin/qemu-killed" <<EOF
#!/bin/bash
case "\$*" in
*/aligned/rep*) "$real_qemu" "\$@" & pid=\$!; sleep 1; kill -KILL \$pid; wait \$pid; exit \$? ;;
esac
exec "$real_qemu" "\$@"
EOF
chmod +x "$T_TMP/bin/qemu-killed"
SLB_QEMU=$T_TMP/bin/qemu-killed "${study[@]}" --scenarios baseline,aligned --reps 1 --id k >"$T_TMP/k.out" 2>&1
rc=$?
k=$res/k
t_ok "a later study keeps the interrupted run, naming how to resume it" sh -c "[ -d '$inc' ] && grep -q 'keeping $inc: an interrupted study' '$T_TMP/k.out'"
t_ok "a comparison's scenario without a usable rep: exit 1" sh -c "[ $rc = 1 ] || { tail '$T_TMP/k.out'; exit 1; }"
t_ok "... naming the scenario and the comparison that needs it" grep -q 'aligned has no usable rep, and the comparison aligned/baseline needs it' "$T_TMP/k.out"
t_ok "... which the run keeps in problems.txt, and never calls complete" sh -c "grep -q 'aligned has no usable rep' '$k/problems.txt' && ! grep -q 'run k complete' '$T_TMP/k.out'"
t_ok "a killed QEMU: the rep's outcome.json gives the reason" jq -e '.outcome != "ok" and (.reason | test("QEMU was killed by SIGKILL"))' "$k/aligned/rep1/outcome.json"
t_ok "... and the progress line names it" grep -q "aligned rep 1: guest run ended '[a-z-]*': .*QEMU was killed by SIGKILL" "$T_TMP/k.out"
t_ok "... the other scenario's rep is kept and pooled" jq -e '.scenarios[] | select(.name == "baseline") | .reps_ok == 1 and .pooled.samples > 0' "$k/summary.json"
t_ok "no usable rep: the summary says 'no data', JSON null" sh -c "grep -q '^aligned .* 0/1 *no data' '$k/summary.txt' &&
	jq -e '.scenarios[] | select(.name == \"aligned\") | .pooled.p99_us == null and .pooled.max_us == null' '$k/summary.json'"
t_ok "... and no -1 in the summary, CSV or report" sh -c "! grep -E -- '(^|[ ,|])-1([ ,|]|\$)' '$k/summary.txt' '$k/summary.csv' '$k/report.md'"
t_ok "... the report lists the failed rep with why, and the comparison as no data" sh -c "grep -q '^- aligned rep1: .*killed by SIGKILL' '$k/report.md' &&
	grep -q '^| aligned / baseline | .* no data .*aligned has no usable rep' '$k/report.md'"
t_ok "... the plots draw what exists and skip what does not" sh -c "[ -s '$k/plots/hist-baseline.png' ] && [ ! -e '$k/plots/hist-aligned.png' ] && [ -s '$k/plots/summary.png' ]"

# --resume finishes the interrupted run.
"${study[@]}" --resume i >"$T_TMP/r.out" 2>&1
rc=$?
t_ok "--resume runs only the rep still to do and finishes the run" sh -c "[ $rc = 0 ] && grep -q 'run i resumed: 1 of 2' '$T_TMP/r.out' &&
	grep -q 'run i complete' '$T_TMP/r.out' && [ ! -e '$inc' ] && [ -s '$res/i/report.md' ] || { tail '$T_TMP/r.out'; exit 1; }"
t_ok "... and, its report made, keeps no report.err (the report's progress lines)" test ! -e "$res/i/report.err"

# A report that fails (a cmark-gfm that fails): the run is kept, exit 1
# naming it; make report redoes it. Its reps ran without interruption:
# the resumed run's histograms must be theirs, byte for byte.
printf '#!/bin/sh\necho "cmark-gfm: out of order" >&2\nexit 1\n' >"$T_TMP/bin/cmark-gfm"
chmod +x "$T_TMP/bin/cmark-gfm"
PATH=$T_TMP/bin:$PATH "${study[@]}" --scenarios baseline,aligned --reps 1 --id u >"$T_TMP/u.out" 2>&1
rc=$?
t_ok "a report that fails: exit 1 naming it, the run kept" sh -c "[ $rc = 1 ] && grep -q 'the report failed' '$T_TMP/u.out' &&
	grep -q 'make report RUN=u' '$res/u/problems.txt' && jq -e '.scenarios | length == 2' '$res/u/summary.json' || { tail '$T_TMP/u.out'; exit 1; }"
t_ok "... keeping why in report.err" grep -q 'cmark-gfm: out of order' "$res/u/report.err"
t_ok "... and the report can be made again" sh -c "'$T_ROOT/bench/report/report.sh' '$res/u' 2>/dev/null && [ -s '$res/u/report.html' ]"
t_ok "the resumed run's histograms are byte for byte the uninterrupted run's" sh -c \
	"cmp '$res/u/baseline/rep1/files/hist.txt' '$res/i/baseline/rep1/files/hist.txt' && cmp '$res/u/aligned/rep1/files/hist.txt' '$res/i/aligned/rep1/files/hist.txt'"

# A results directory that fills up: the study stops, keeps what it
# finished, and resumes once there is room.
mnt=$T_TMP/small
mkdir -p "$mnt"
if mount -t tmpfs -o size=48m tmpfs "$mnt" 2>/dev/null; then
	"${study[@]}" --scenarios baseline --reps 2 --results "$mnt" --id full >"$T_TMP/full.out" 2>&1 &
	pid=$!
	until_seen "$T_TMP/full.out" '\[1/2\]'
	dd if=/dev/zero of="$mnt/filler" bs=1M 2>/dev/null
	wait "$pid"
	rc=$?
	t_ok "a full results directory: the study stops with exit 1 naming it" sh -c "[ $rc = 1 ] && grep -q 'stopped: $mnt has no room left' '$T_TMP/full.out' || { tail '$T_TMP/full.out'; exit 1; }"
	t_ok "... the rep finished before is kept" grep -qx outcome=ok "$mnt/.incomplete-full/baseline/rep1/rep.info"
	rm -f "$mnt/filler"
	"${study[@]}" --resume full --results "$mnt" >"$T_TMP/full2.out" 2>&1
	rc=$?
	t_ok "... and with room again, --resume finishes it" sh -c "[ $rc = 0 ] && [ -s '$mnt/full/summary.json' ] &&
		cmp '$mnt/full/baseline/rep1/files/hist.txt' '$res/u/baseline/rep1/files/hist.txt' || { tail '$T_TMP/full2.out'; exit 1; }"
	umount "$mnt"
else
	t_skip "a results directory that fills up (3 tests)" "cannot mount a tmpfs here (not root?)"
fi

# A sweep interrupted once its first study is done keeps it; --resume
# runs the rest with the sweep's own options, and refuses others.
sweep=("$T_ROOT/bench/experiment/sweep.sh" --bus-lock-model all --costs 1000,3000 --load-rate 1000 --duration 3 --reps 1 --jobs 1 --results "$res")
env --default-signal=INT "${sweep[@]}" --id sw >"$T_TMP/sw.out" 2>&1 &
pid=$!
until_seen "$T_TMP/sw.out" '\[2/3\]'
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
t_ok "an interrupted sweep: exit 130, its finished study kept" sh -c "[ $rc = 130 ] && [ -s '$res/.incomplete-sw/aligned/summary.json' ] &&
	grep -q \"'make bench-sweep RESUME=sw'\" '$T_TMP/sw.out' || { tail '$T_TMP/sw.out'; exit 1; }"
t_ok "--resume of a sweep refuses another option: exit 2, one line" t_refuses "duration" "$T_ROOT/bench/experiment/sweep.sh" --resume sw --duration 4 --results "$res"
"$T_ROOT/bench/experiment/sweep.sh" --resume sw --jobs 1 --results "$res" >"$T_TMP/sw2.out" 2>&1
rc=$?
t_ok "... --resume skips it, runs the others and finishes the sweep" sh -c "[ $rc = 0 ] && grep -q '\\[1/3\\] the aligned control: done before' '$T_TMP/sw2.out' &&
	jq -e '[.rows[].bus_lock_ns] == [1000, 3000] and .load_rate == 1000' '$res/sw/sweep.json' >/dev/null && [ ! -e '$res/.incomplete-sw' ] || { tail '$T_TMP/sw2.out'; exit 1; }"
