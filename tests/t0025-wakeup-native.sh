#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make wakeup-native (bench/experiment/wakeup-native.sh): its command-line
# contract (bad input exits 2 naming the value; a plan over the split-lock
# budget; --validate starts nothing), and a tiny run end to end: a
# histogram per victim, load and rep, the per-run statistics and the
# ratios with their intervals in wakeup.json, the busy victim's spinner
# running on the victim CPU for the whole run, nothing left running, and
# Ctrl-C leaving nothing.
# No timing thresholds: what the figures are is the machine's.
# This machine is shared and native split locks slow all of it: the run
# here is 4 reps x 1 s per victim under a split load of 1000 ops/s (a
# split lock a millisecond), 16 s of it in all, rate-limited.
# t-serial: native split locks, cyclictest on a CPU of its own, and no other slb-load or cyclictest beside it
. "$(dirname "$0")/lib.sh"
script=$T_ROOT/bench/experiment/wakeup-native.sh

t_ok "--help exits 0" "$script" --help
t_ok "--no-such-option exits 2" t_expect_code 2 "$script" --no-such-option
t_ok "--reps 3 (too few for an interval) is refused, named" t_refuses "reps=3" "$script" --validate --reps 3
t_ok "--duration x is refused, named" t_refuses "duration 'x'" "$script" --validate --duration x
t_ok "--reps 08 (a leading zero: octal to the shell) is refused, named" t_refuses "reps '08'" "$script" --validate --reps 08
t_ok "--cpus 1,01 (one CPU, spelt twice) is refused" t_refuses "CPU '01'" "$script" --validate --cpus 1,01
t_ok "--victim bogus is refused, named with what is allowed" t_refuses "'bogus' is not idle, busy or idle,busy" \
	"$script" --validate --victim bogus
t_ok "--cpus naming one CPU twice is refused" t_refuses "'1,1' names one CPU twice" "$script" --validate --cpus 1,1
t_ok "--cpus naming a CPU this process cannot run on is refused, with those it can" t_refuses "names CPU 999, which this process cannot run on (allowed: " "$script" --validate --cpus 999,0
t_ok "--cpus not two numbers is refused" t_refuses "'a,b' is not VICTIM,LOAD" "$script" --validate --cpus a,b
t_ok "a bad --id is refused" t_refuses "'../x'" "$script" --validate --id ../x
t_ok "a plan over --max-split-s is refused, with what would fit" \
	t_refuses "48 s of it under split locks: more than --max-split-s 10" "$script" --validate --max-split-s 10
t_ok "--validate prints the plan, exits 0 and creates nothing" sh -c "
	out=\$('$script' --validate -o '$T_TMP/v' 2>&1) && echo \"\$out\" | grep -q 'plan: victim CPU' && [ ! -e '$T_TMP/v' ]"

if [ "$(nproc)" -lt 2 ]; then
	t_skip "the runs" "this machine has fewer than 2 CPUs"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v cyclictest >/dev/null; then
	t_skip "the runs" "cyclictest as root is needed (make deps installs rt-tests; the tests run as root in CI)"
	exit 0
fi
t_ok "not root: a clear refusal, exit 1" sh -c "
	err=\$(setpriv --reuid=65534 --regid=65534 --clear-groups '$script' -o '$T_TMP/nr' --id x 2>&1 >/dev/null)
	rc=\$?; [ \$rc = 1 ] && echo \"\$err\" | grep -q 'needs root' && [ ! -e '$T_TMP/nr/x' ] || { echo \"exit \$rc: \$err\"; exit 1; }"

run=$T_TMP/r/w1
"$script" --reps 4 --duration 1 --cpus 1,0 --load-rate 1000 --max-split-s 16 -o "$T_TMP/r" --id w1 \
	>"$T_TMP/w1.out" 2>"$T_TMP/w1.err"
rc=$?
t_ok "a tiny run exits 0" test "$rc" = 0
t_ok "... its directory is complete, nothing left as .incomplete" sh -c "
	[ -s '$run/wakeup.json' ] && [ -s '$run/wakeup.txt' ] && [ -s '$run/runs.dat' ] && [ -s '$run/progress.log' ] &&
	! ls -d '$T_TMP/r'/.incomplete-* 2>/dev/null"
t_ok "... a histogram per victim, load and rep (16), each with 1000 samples or so" sh -c "
	[ \$(ls '$run'/runs/*.hist | wc -l) = 16 ] &&
	for f in '$run'/runs/*.hist; do
		n=\$(awk '!/^#/ && NF >= 2 { s += \$2 } END { print s + 0 }' \"\$f\")
		[ \"\$n\" -ge 900 ] && [ \"\$n\" -le 1001 ] || { echo \"\$f: \$n samples\"; exit 1; }
	done"
t_ok "... wakeup.json: four statistics of 4 runs each for each victim and load" jq -e '
	(.runs | keys) == ["busy-aligned", "busy-split", "idle-aligned", "idle-split"] and
	all(.runs[]; all(.p50, .p99, .p999, .max; length == 4 and all(.[]; . >= 0)))' "$run/wakeup.json"
t_ok "... each run's load rate: about the 1000 LOCKed ops per second asked for" jq -e '
	all(.runs[]; .load_ops_s | length == 4 and all(.[]; . > 500 and . < 1500))' "$run/wakeup.json"
t_ok "... split/aligned per victim and busy/idle per load, each with a 95 % interval around it" jq -e '
	(.ratios | length) == 16 and
	all(.ratios[]; .r.ratio > 0 and .r.ci95[0] <= .r.ratio and .r.ratio <= .r.ci95[1]) and
	([.ratios[] | select(.kind == "split_over_aligned") | .victim] | unique) == ["busy", "idle"] and
	([.ratios[] | select(.kind == "busy_over_idle") | .load] | unique) == ["aligned", "split"]' "$run/wakeup.json"
t_ok "... the busy victim's spinner ran on the victim CPU, about the whole run (1 s ahead, 1 s measured)" jq -e '
	.params.victim_cpu as $v |
	all(.runs["busy-aligned"], .runs["busy-split"]; all(.spin_cpu_s[]; . >= 1.5) and all(.spin_last_cpu[]; . == $v)) and
	(.runs["idle-split"] | has("spin_cpu_s") | not)' "$run/wakeup.json"
t_ok "... the machine is named, a VM said to be one" jq -e '
	(.machine.cpu_model | length) > 0 and (.machine.vm | type) == "boolean" and
	(if .machine.vm then (.machine.note | test("seen through a hypervisor")) else true end) and
	(.machine.split_lock.flag_split_lock_detect | test("^(yes|no)$"))' "$run/wakeup.json"
t_ok "... the table is printed, with the ratios" sh -c "
	grep -q '^split/aligned idle    p50    x' '$T_TMP/w1.out' && grep -q '^busy/idle split       p99    x' '$T_TMP/w1.out'"
t_ok "... progress went to the terminal, a line per run" t_line_count 16 <(grep 'rep [0-9]/4: ' "$T_TMP/w1.err")
t_ok "... no spinner or load left running" sh -c "! pgrep -f '^sh -c while :; do :; done$' && ! pgrep -x slb-load"
t_ok "an id that exists is refused, the run kept" sh -c "
	'$script' --validate -o '$T_TMP/r' --id w1 2>&1 | grep -q \"exists in\" && [ -s '$run/wakeup.json' ]"

# Ctrl-C inside a busy victim's cyclictest: 1.5 s into the run after rep
# 1's idle split one (1 s of load alone, then 2 s of cyclictest).
code=$(t_interrupt "$T_TMP/w2.out" "rep 1/4: idle victim, split" 1.5 "$script" --reps 4 --duration 2 --cpus 1,0 \
	--load-rate 1000 --max-split-s 24 -o "$T_TMP/r" --id w2)
t_ok "Ctrl-C inside a busy victim's run: exit 130, nothing kept, no spinner, load or cyclictest left" sh -c "
	[ '$code' = 130 ] && grep -q 'interrupted: nothing kept' '$T_TMP/w2.out' && [ ! -e '$T_TMP/r/w2' ] &&
	! ls -d '$T_TMP/r'/.incomplete-w2 2>/dev/null &&
	! pgrep -f '^sh -c while :; do :; done\$' && ! pgrep -x slb-load && ! pgrep -x cyclictest"
